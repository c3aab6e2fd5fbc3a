@testable import Gateway
import HTTPServer
import Testing

/// Issue 21 point 6: whom a request is counted against.
@Suite(.tags(.unit)) struct ForwardedForTests {
    let proxies = [AddressRange("10.0.0.0/8")!, AddressRange("fd00::/8")!, AddressRange("192.0.2.7")!]

    func client(peer: String, _ headers: [(String, String)]) -> String {
        ForwardedFor.clientAddress(of: HTTPRequest(method: "GET", path: "/", headers: HTTPHeaders(headers), clientAddress: peer), trusting: proxies)
    }

    @Test func rangesMatchTheirAddressesOnly() {
        #expect(proxies[0].contains("10.255.0.1") && !proxies[0].contains("11.0.0.1") && proxies[1].contains("fd12::1"))
        #expect(proxies[2].contains("192.0.2.7") && !proxies[2].contains("192.0.2.8"))
        #expect(proxies[0].contains("::ffff:10.1.2.3"), "an IPv4-mapped peer is its IPv4 address")
        #expect(AddressRange("10.0.0.0/33") == nil && AddressRange("example.com") == nil && AddressRange("::1/129") == nil)
        #expect(throws: GatewayError.self) { try AddressRange.list("10.0.0.0/8, nonsense") }
    }

    @Test func anUntrustedPeerIsTheClientWhateverItForwards() {
        #expect(client(peer: "198.51.100.1", [("X-Forwarded-For", "203.0.113.5")]) == "198.51.100.1")
        #expect(client(peer: "198.51.100.1", [("Forwarded", "for=203.0.113.5")]) == "198.51.100.1")
    }

    @Test func behindTrustedProxiesTheClientIsTheFirstUntrustedHopFromTheEnd() {
        #expect(client(peer: "10.0.0.1", [("X-Forwarded-For", "203.0.113.5")]) == "203.0.113.5")
        // A client prepending its own choice gains nothing: the proxy appended the address it saw.
        #expect(client(peer: "10.0.0.1", [("X-Forwarded-For", "1.1.1.1, 203.0.113.5, 10.0.0.9")]) == "203.0.113.5")
        #expect(client(peer: "10.0.0.1", [("Forwarded", #"for="[2001:db8::1]:4711";proto=https, for=10.0.0.2"#)]) == "2001:db8::1")
        #expect(client(peer: "10.0.0.1", [("Forwarded", "for=198.51.100.3:80"), ("X-Forwarded-For", "203.0.113.5")]) == "198.51.100.3",
                "Forwarded is preferred")
        #expect(client(peer: "10.0.0.1", [("Forwarded", "for=unknown")]) == "10.0.0.1", "a hop naming no address stops at the proxy")
        #expect(client(peer: "10.0.0.1", []) == "10.0.0.1")
    }
}
