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

    /// A TLS server (a self-signed certificate for 127.0.0.1 in a directory of its own, removed afterwards) and the directory.
    static func withTLSServer(_ body: (HTTPServer, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try makeSelfSignedCertificate(in: directory)
        let tls = try HTTPServerConfiguration.TLS(certificateFile: files.certificate, keyFile: files.key)
        let server = try HTTPServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, tls: tls, bodyLimit: { _, _ in 16 }),
                                    handler: Echo().handle)
        try await body(server, directory)
        await server.stop()
    }

    @Test func itServesTLSWithACertificateFromPEMFiles() async throws {
        try await Self.withTLSServer { server, directory in
            #expect(server.isTLS)
            let secure = try await CurlRun.run(["--cacert", directory + "/cert.pem", "https://127.0.0.1:\(server.port)/s"])
            #expect(secure.status == 200 && secure.body == "GET /s - ")
            let unverified = try await CurlRun.run(["https://127.0.0.1:\(server.port)/s"])
            #expect(unverified.status == 0)
            let plain = try await CurlRun.run(["http://127.0.0.1:\(server.port)/s"])
            #expect(plain.status != 200)
        }
    }

    @Test func bodiesHeldAtOnceAreBoundedTogetherAndPerAddressAndPastTheBudgetAnswered503() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let handled = Mutex(0)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 1000 })
        configuration.bodyBudget = 1000
        configuration.bodyBudgetPerAddress = 600
        let server = try HTTPServer(configuration) { request in
            handled.withLock { $0 += 1 }
            if request.path == "/hold" { for await _ in gate.stream { break } }
            return .text(200, "\(request.body.count)")
        }
        let url = "http://127.0.0.1:\(server.port)"
        func post(_ count: Int, _ path: String, from address: String, _ extra: [String] = []) async throws -> CurlRun {
            try await CurlRun.run(["--interface", address] + extra + ["--data-binary", String(repeating: "b", count: count), url + path])
        }
        // 500 bytes held by a request of 127.0.0.2 whose handler waits: 200 more from that address do not fit (per address).
        let held = Task { try await post(500, "/hold", from: "127.0.0.2") }
        while handled.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let sameAddress = try await post(200, "/next", from: "127.0.0.2")
        #expect(sameAddress.status == 503 && sameAddress.header("Retry-After") == "1")
        // Another address fits up to the whole budget: 500 more do not, announced or chunked; 400 do.
        let announced = try await post(501, "/next", from: "127.0.0.3")
        #expect(announced.status == 503)
        let chunked = try await post(501, "/next", from: "127.0.0.3", ["-H", "Transfer-Encoding: chunked"])
        #expect(chunked.status == 503)
        let small = try await post(400, "/next", from: "127.0.0.3")
        #expect(small.status == 200 && small.body == "400")
        #expect(handled.withLock { $0 } == 2)
        // Once the held request is answered its bytes are given back.
        gate.continuation.yield()
        #expect(try await held.value.status == 200)
        let after = try await post(600, "/next", from: "127.0.0.2")
        #expect(after.status == 200 && after.body == "600")
        await server.stop()
    }

    /// Bodies announced and never sent hold nothing of the budget: a sender's requests keep being answered.
    @Test func announcedBodiesThatNeverArriveHoldNothing() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 1 << 20 })
        configuration.bodyBudget = 1 << 20
        configuration.bodyBudgetPerAddress = 1 << 20
        let server = try HTTPServer(configuration, handler: Echo().handle)
        let idle = try await SlowClients.start(port: server.port, count: 8, source: "127.0.0.2",
                                          script: "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n", trickle: nil)
        defer { idle.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let answered = try await CurlRun.run(["--data-binary", String(repeating: "z", count: 100_000), "http://127.0.0.1:\(server.port)/x"])
        #expect(answered.status == 200 && answered.body.hasSuffix(String(repeating: "z", count: 16)))
        await server.stop()
    }

    /// A request whose headers, or whose body, trickle in slower than the deadlines allow has its connection closed,
    /// however steadily it sends; other clients are answered meanwhile.
    @Test func slowHeadersAndSlowBodiesAreCutOff() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 1 << 20 })
        configuration.headerTimeout = .seconds(1)
        configuration.minimumBodyRate = 1024
        // Never idle: only the deadlines can end these connections.
        configuration.connectionTimeout = 600
        let server = try HTTPServer(configuration, handler: Echo().handle)
        let heads = try await SlowClients.start(port: server.port, count: 2, source: "127.0.0.2", script: "GET /slow-head HTTP/1.1\r\nX-Pad: ",
                                          trickle: "a")
        let bodies = try await SlowClients.start(port: server.port, count: 2, source: "127.0.0.3",
                                           script: "POST /slow-body HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", trickle: "b")
        defer { heads.stop(); bodies.stop() }
        let answered = try await CurlRun.run(["http://127.0.0.1:\(server.port)/meanwhile"])
        #expect(answered.status == 200)
        let closed = try await heads.waitUntilClosed(within: .seconds(30))
        let closedBodies = try await bodies.waitUntilClosed(within: .seconds(30))
        #expect(closed && closedBodies, "a trickling connection stayed open")
        await server.stop()
    }

    /// One address holds at most its share of connections; another is still served.
    @Test func oneAddressHoldsAtMostItsConnections() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 16 })
        configuration.connectionsPerAddress = 4
        // The held connections stay held however slow the machine: only the limit is at play.
        configuration.headerTimeout = .seconds(600)
        let server = try HTTPServer(configuration, handler: Echo().handle)
        let hogs = try await SlowClients.start(port: server.port, count: 8, source: "127.0.0.2", script: "GET / HTTP/1.1\r\n", trickle: nil)
        defer { hogs.stop() }
        // The server closes the four past the limit at once; four stay held.
        #expect(try await hogs.closedCount(reaching: 4, within: .seconds(20)) == 4)
        let refused = try await CurlRun.run(["--interface", "127.0.0.2", "http://127.0.0.1:\(server.port)/fifth"])
        #expect(refused.status == 0, "a fifth connection of the same address was served")
        let other = try await CurlRun.run(["--interface", "127.0.0.3", "http://127.0.0.1:\(server.port)/other"])
        #expect(other.status == 200)
        await server.stop()
    }

    /// TLS 1.2 and 1.3 only, ECDHE with AEAD suites only: what `openssl s_client` offers otherwise fails the handshake.
    @Test(arguments: [(["-tls1_3"], true), (["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"], true),
                      (["-tls1_2", "-cipher", "ECDHE-RSA-CHACHA20-POLY1305"], true),
                      (["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"], false), (["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"], false),
                      (["-tls1_2", "-cipher", "AES128-SHA"], false), (["-tls1_2", "-cipher", "AES128-GCM-SHA256"], false),
                      (["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA"], false)])
    func tlsOffersOnlyModernVersionsAndSuites(options: [String], accepted: Bool) async throws {
        try await Self.withTLSServer { server, _ in
            let handshake = try TLSHandshake.attempt(port: server.port, options: options)
            #expect(handshake.succeeded == accepted, "\(options): \(handshake.summary)")
        }
    }

    @Test func plainHTTPIsRefusedOffLoopback() throws {
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(HTTPServerConfiguration(host: "0.0.0.0", port: 0, bodyLimit: { _, _ in 16 }), handler: Echo().handle)
        }
        #expect(HTTPServerConfiguration.isLoopback("127.0.0.1") && HTTPServerConfiguration.isLoopback("::1"))
        #expect(!HTTPServerConfiguration.isLoopback("10.0.0.1") && !HTTPServerConfiguration.isLoopback("127.example.com"))
    }
}
