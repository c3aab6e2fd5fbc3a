import Curl
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct CurlHandleTests {
    @Test func aRequestLibcurlCannotMakeIsMisuse() throws {
        let handle = try CurlHandle()
        let error = #expect(throws: CurlError.self) { try handle.perform([.url("gopherish://example.com/")]) }
        #expect(error?.cause == .misuse)
        #expect(error?.responseCode == 0)
    }

    @Test func noServerIsAnOtherFailureWithLibcurlsDetail() throws {
        let handle = try CurlHandle()
        let error = #expect(throws: CurlError.self) {
            try handle.perform([.url("http://127.0.0.1:1/"), .connectTimeout(.seconds(2)), .timeout(.seconds(5))])
        }
        #expect(error?.cause == .other)
        #expect(error?.detail.contains("127.0.0.1") == true, "libcurl's own message names the address: \(error?.detail ?? "")")
        #expect(error?.summary != error?.detail)
    }

    @Test func aPooledHandleStartsEachTransferAfresh() throws {
        let pool = CurlHandlePool()
        let first = #expect(throws: CurlError.self) {
            try pool.withHandle { (handle) throws(CurlError) in try handle.perform([.url("gopherish://x/")]) }
        }
        let second = #expect(throws: CurlError.self) {
            try pool.withHandle { (handle) throws(CurlError) in try handle.perform([.url("http://127.0.0.1:1/")]) }
        }
        #expect(first?.cause == .misuse)
        #expect(second?.cause == .other)
    }
}
