import Foundation
import HTTPServer

/// Who a request comes from: its peer, unless the peer is a trusted proxy, in which case the client the proxies
/// name (`Forwarded: for=…`, RFC 7239, else `X-Forwarded-For`): walking their list from the nearest hop back, the
/// first address that is not a trusted proxy. A hop that names no address (`unknown`, an obfuscated name)
/// stops the walk at the proxy that added it. Headers from any other peer are ignored: a client cannot choose
/// the address it is limited by.
enum ForwardedFor {
    static func clientAddress(of request: HTTPRequest, trusting proxies: [AddressRange]) -> String {
        var client = request.clientAddress
        guard proxies.contains(where: { $0.contains(client) }) else { return client }
        for hop in hops(request.headers).reversed() {
            guard let address = hop, AddressRange.bytes(of: address) != nil else { return client }
            client = address
            if !proxies.contains(where: { $0.contains(address) }) { return address }
        }
        return client
    }

    /// The addresses the proxies added, first hop first; nil for a hop that names none.
    static func hops(_ headers: HTTPHeaders) -> [String?] {
        let forwarded = headers.fields.filter { $0.name.lowercased() == "forwarded" }.map(\.value)
        if !forwarded.isEmpty {
            return forwarded.flatMap { $0.split(separator: ",") }.map { element in
                let pairs = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let node = pairs.first(where: { $0.lowercased().hasPrefix("for=") })?.dropFirst(4) else { return nil }
                return address(ofNode: String(node).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        let listed = headers.fields.filter { $0.name.lowercased() == "x-forwarded-for" }.map(\.value)
        return listed.flatMap { $0.split(separator: ",") }.map { address(ofNode: $0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The address of a node: `1.2.3.4`, `1.2.3.4:80`, `[::1]`, `[::1]:80` or a bare IPv6 address; nil otherwise.
    static func address(ofNode node: String) -> String? {
        if node.hasPrefix("["), let end = node.firstIndex(of: "]") { return String(node[node.index(after: node.startIndex)..<end]) }
        if node.filter({ $0 == ":" }).count == 1 { return String(node.split(separator: ":")[0]) }
        return node.isEmpty ? nil : node
    }
}
