import Foundation
import HTTPServer
import Support
import Synchronization
@testable import TestSupport
import Testing

/// The HTTP server over libmicrohttpd, driven by curl.
@Suite(.tags(.unit)) struct HTTPServingTests {
    /// Answers `METHOD path` and the body back, counting the requests it was handed.
    final class Echo: Sendable {
        let handled = Mutex(0)

        func handle(_ request: HTTPRequest) async -> HTTPResponse {
            handled.withLock { $0 += 1 }
            if request.path == "/slow" { try? await Task.sleep(for: .milliseconds(300)) }
            let text = "\(request.method) \(request.path) \(request.headers["X-Test"] ?? "-") \(String(decoding: request.body, as: UTF8.self))"
            return HTTPResponse(status: request.path == "/missing" ? 404 : 200, headers: HTTPHeaders([("X-Answer", "yes")]),
                                body: Array(text.utf8))
        }
    }

    static func plain(limit: Int = 16, _ echo: Echo) throws -> HTTPServer {
        try HTTPServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in limit }), handler: echo.handle)
    }

    @Test func itRoutesMethodPathHeadersAndBodyToTheHandler() async throws {
        let echo = Echo()
        let server = try Self.plain(echo)
        let base = "http://127.0.0.1:\(server.port)"
        let get = try await CurlRun.run(["-H", "X-Test: hello", "\(base)/a/b"])
        #expect(get.status == 200 && get.body == "GET /a/b hello " && get.header("X-Answer") == "yes")
        let post = try await CurlRun.run(["--data-binary", "body=1", "\(base)/echo"])
        #expect(post.status == 200 && post.body == "POST /echo - body=1")
        let missing = try await CurlRun.run(["\(base)/missing"])
        #expect(missing.status == 404)
        await server.stop()
    }

    @Test func aBodyPastTheLimitIsAnswered413AndNeverHandled() async throws {
        let echo = Echo()
        let server = try Self.plain(limit: 16, echo)
        let url = "http://127.0.0.1:\(server.port)/upload"
        let atLimit = try await CurlRun.run(["--data-binary", String(repeating: "a", count: 16), url])
        #expect(atLimit.status == 200)
        let announced = try await CurlRun.run(["--data-binary", String(repeating: "a", count: 17), url])
        #expect(announced.status == 413)
        let chunked = try await CurlRun.run(["-H", "Transfer-Encoding: chunked", "--data-binary", String(repeating: "a", count: 4000), url])
        #expect(chunked.status == 413)
        #expect(echo.handled.withLock { $0 } == 1)
        await server.stop()
    }

    @Test func requestsInFlightAtOnceAreAllAnswered() async throws {
        let echo = Echo()
        let server = try Self.plain(echo)
        let url = "http://127.0.0.1:\(server.port)/slow"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 { group.addTask { try await CurlRun.run([url]).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 12))
        await server.stop()
    }

    @Test func aClientLeavingWhileItsRequestIsHandledDisturbsNothing() async throws {
        let echo = Echo()
        let server = try Self.plain(echo)
        let base = "http://127.0.0.1:\(server.port)"
        let left = try await CurlRun.run(["--max-time", "0.1", "\(base)/slow"])
        #expect(left.status == 0)
        try await Task.sleep(for: .milliseconds(400))
        let next = try await CurlRun.run(["\(base)/after"])
        #expect(next.status == 200 && next.body == "GET /after - ")
        #expect(echo.handled.withLock { $0 } == 2)
        await server.stop()
    }

    @Test func itServesTLSWithACertificateFromPEMFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try makeSelfSignedCertificate(in: directory)
        let tls = try HTTPServerConfiguration.TLS(certificateFile: files.certificate, keyFile: files.key)
        let server = try HTTPServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, tls: tls, bodyLimit: { _, _ in 16 }),
                                    handler: Echo().handle)
        #expect(server.isTLS)
        let secure = try await CurlRun.run(["--cacert", directory + "/cert.pem", "https://127.0.0.1:\(server.port)/s"])
        #expect(secure.status == 200 && secure.body == "GET /s - ")
        let unverified = try await CurlRun.run(["https://127.0.0.1:\(server.port)/s"])
        #expect(unverified.status == 0)
        let plain = try await CurlRun.run(["http://127.0.0.1:\(server.port)/s"])
        #expect(plain.status != 200)
        await server.stop()
    }

    @Test func bodiesHeldAtOnceAreBoundedTogetherAndPastTheBudgetAnswered503() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let handled = Mutex(0)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 1000 })
        configuration.bodyBudget = 1000
        let server = try HTTPServer(configuration) { request in
            handled.withLock { $0 += 1 }
            if request.path == "/hold" { for await _ in gate.stream { break } }
            return .text(200, "\(request.body.count)")
        }
        let url = "http://127.0.0.1:\(server.port)"
        // 700 bytes held by a request whose handler waits: 400 more do not fit, announced or chunked.
        let held = Task { try await CurlRun.run(["--data-binary", String(repeating: "a", count: 700), url + "/hold"]) }
        while handled.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let announced = try await CurlRun.run(["--data-binary", String(repeating: "b", count: 400), url + "/next"])
        #expect(announced.status == 503 && announced.header("Retry-After") == "1")
        let chunked = try await CurlRun.run(["-H", "Transfer-Encoding: chunked", "--data-binary", String(repeating: "c", count: 400), url + "/next"])
        #expect(chunked.status == 503 && chunked.header("Retry-After") == "1")
        let small = try await CurlRun.run(["--data-binary", String(repeating: "d", count: 300), url + "/next"])
        #expect(small.status == 200 && small.body == "300")
        #expect(handled.withLock { $0 } == 2)
        // Once the held request is answered its bytes are given back.
        gate.continuation.yield()
        #expect(try await held.value.status == 200)
        let after = try await CurlRun.run(["--data-binary", String(repeating: "e", count: 1000), url + "/next"])
        #expect(after.status == 200 && after.body == "1000")
        await server.stop()
    }

    @Test func plainHTTPIsRefusedOffLoopback() throws {
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(HTTPServerConfiguration(host: "0.0.0.0", port: 0, bodyLimit: { _, _ in 16 }), handler: Echo().handle)
        }
        #expect(HTTPServerConfiguration.isLoopback("127.0.0.1") && HTTPServerConfiguration.isLoopback("::1"))
        #expect(!HTTPServerConfiguration.isLoopback("10.0.0.1") && !HTTPServerConfiguration.isLoopback("127.example.com"))
    }
}
