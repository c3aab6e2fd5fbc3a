import Console
import Domain
import Foundation
import HTTPServer
import Kafka
import Registration
@testable import TestSupport
import Testing

/// Every route of the operator console and every answer it gives, through `Console.handle` in the test process on
/// the in-process workers (the route tier); `ConsoleTests` drives the process with a real browser and curl. Each
/// attack is played with what an attacker can send, and what it could have read or replayed is checked for.
@Suite(.tags(.routes)) struct ConsoleRouteTests {
    static let host = "console.test"
    static let (operatorName, password) = ("ops", "correct horse battery staple")
    static let authorization = "Basic " + Data("\(operatorName):\(password)".utf8).base64EncodedString()

    /// An operators file with `operatorName`, made once.
    static let operators: OperatorFile = {
        let path = FileManager.default.temporaryDirectory.path + "/console-operators-\(UUID().uuidString.prefix(8))"
        try! OperatorFile.add(operatorName, password: password, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try! OperatorFile(contentsOf: path)
    }()

    /// Runs `body` with a console on the shared in-process system, reading in the background until `body` ends.
    static func withConsole(_ body: (InProcessSystem, Console) async throws -> Void) async throws {
        let system = try await InProcessSystem.shared()
        let audit = RegistrationAudit(accounts: try system.backends.accounts(), profiles: try system.backends.profiles(),
                                      images: try system.backends.objects())
        var settings = Console.Settings(operators: operators, hostNames: [host])
        settings.refresh = 1
        settings.isLocalBroker = true
        let console = try Console(kafka: system.kafka, audit: audit, settings: settings)
        let reading = Task { await console.run() }
        defer { reading.cancel() }
        try await body(system, console)
    }

    static func get(_ console: Console, _ path: String, host: String = host, authorization: String? = authorization,
                    from address: String = "127.0.0.1") async -> Routes.Answer {
        let headers = [("Host", host)] + (authorization.map { [("Authorization", $0)] } ?? [])
        return Routes.Answer(await console.handle(HTTPRequest(method: "GET", path: path, headers: HTTPHeaders(headers), clientAddress: address)))
    }

    static func post(_ console: Console, _ path: String, form: String, host: String = host, headers: [(String, String)] = []) async -> Routes.Answer {
        Routes.Answer(await console.handle(HTTPRequest(method: "POST", path: path, headers: HTTPHeaders(
            [("Host", host), ("Authorization", authorization), ("Content-Type", "application/x-www-form-urlencoded")] + headers),
            body: Array(form.utf8))))
    }

    /// The overview once `shows` holds of it (the console reads in the background); fails after 30 s.
    static func overview(_ console: Console, showing shows: (String) -> Bool) async throws -> Routes.Answer {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            await console.refresh()
            let page = await get(console, "/")
            if shows(page.text) || ContinuousClock.now > deadline { return page }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The CSRF token of the first form of a page.
    static func token(in page: Routes.Answer) throws -> String {
        let start = try #require(page.text.range(of: "name=\"token\" value=\""), "no form token")
        return String(page.text[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test func theOverviewShowsARegistrationWithItsPathUnderTheSecurityHeaders() async throws {
        try await Self.withConsole { system, console in
            let email = Routes.email("overview")
            let uid = try await system.register(email, password: "console overview password")
            let page = try await Self.overview(console) { $0.contains(email) }
            #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains(email) && page.text.contains("RegistrationCompleted") && page.text.contains("<td>account-worker</td>"),
                    "\(page.text.prefix(400))")
            #expect(try system.backends.accounts().account(uid: uid) != nil)
            #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none';") == true && page.header("X-Frame-Options") == "DENY")
            #expect(page.text.contains("the last 1000 messages of each partition (the local broker cannot look offsets up by time)"))
            #expect(page.text.contains("cannot describe consumer groups"), "the mock's missing DescribeGroups is said")
            for chart in ["Messages per minute by topic", "Outcomes per minute by type and reason", "Consumer lag by worker"] {
                #expect(page.text.contains(chart), "the chart \(chart)")
            }
            #expect(page.text.contains("<svg class=\"chart\"") && page.text.contains("<polyline"), "charts as inline SVG")
            #expect(!page.text.contains("<script") && !page.text.contains("style=\""), "no script, no style attribute")
            #expect(page.text.contains("partition 5"), "lag by partition")
            #expect(page.text.contains("The audit of the stores ran "), "the audit's age")
            #expect(page.text.contains("<p class=\"census\">Accounts: "), "the accounts by state")
        }
    }

    /// The audit names the disabled accounts (an operator's `disable` is seen, and who may be enabled again).
    @Test func theAuditNamesTheDisabledAccounts() async throws {
        let system = try await InProcessSystem.shared()
        let email = Routes.email("disabled")
        let uid = try await system.register(email, password: "console disabled password")
        #expect(try await system.operate(.disable, email).state == "disabled")
        try await Self.withConsole { _, console in
            let page = try await Self.overview(console) { $0.contains("<code>\(uid)</code>") }
            #expect(page.text.contains(" disabled, ") && page.text.contains("Disabled: ") && page.text.contains("<code>\(uid)</code>"))
        }
    }

    @Test func withoutAnOperatorsCredentialsNothingIsRead() async throws {
        try await Self.withConsole { system, console in
            _ = try await Self.overview(console) { $0.contains("account-worker") }
            let wrong = "Basic " + Data("\(Self.operatorName):wrong password here".utf8).base64EncodedString()
            let stranger = "Basic " + Data("mallory:\(Self.password)".utf8).base64EncodedString()
            for authorization in [nil, wrong, stranger, "Bearer \(Self.password)", "Basic !!!"] as [String?] {
                let page = await Self.get(console, "/", authorization: authorization, from: "192.0.2.\(Int.random(in: 1...250))")
                #expect(page.status == 401, "\(authorization ?? "none")")
                #expect(page.header("WWW-Authenticate") == "Basic realm=\"Registrar console\", charset=\"UTF-8\"")
                #expect(!page.text.contains("account-worker") && !page.text.contains("token"), "nothing read: \(page.text)")
            }
            // Wrong credentials from one address: after 10 in a minute it is refused, others are not.
            for _ in 0..<10 { #expect(await Self.get(console, "/", authorization: wrong, from: "198.51.100.7").status == 401) }
            let locked = await Self.get(console, "/", from: "198.51.100.7")
            #expect(locked.status == 429 && locked.header("Retry-After") != nil && !locked.text.contains("account-worker"))
            #expect(await Self.get(console, "/", from: "198.51.100.8").status == 200)
            _ = system
        }
    }

    @Test func aHostNameNotTheConsolesIsRefusedBeforeAnythingIsReadOrReplayed() async throws {
        try await Self.withConsole { system, console in
            let (planted, position) = try await system.plantDeadLetter(email: Routes.email("planted"))
            _ = try await Self.overview(console) { $0.contains(planted.registrationId) }
            let token = try Self.token(in: await Self.get(console, "/"))
            // DNS rebinding: the attacker's name now points at the console; the browser sends its origin as same-origin.
            let rebound = "rebind.attacker.example:8090"
            let read = await Self.get(console, "/", host: rebound)
            #expect(read.status == 421 && !read.text.contains(planted.registrationId) && !read.text.contains("token"))
            let replay = await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)&confirm=yes", host: rebound,
                                         headers: [("Origin", "http://\(rebound)"), ("Sec-Fetch-Site", "same-origin")])
            #expect(replay.status == 421)
            #expect(await Self.get(console, "/", host: "").status == 421)
            #expect(await Self.get(console, "/", host: "CONSOLE.TEST.:8090").status == 200, "its own name, any case and port")
            try await Task.sleep(for: .seconds(1))
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 0, "nothing replayed")
        }
    }

    @Test func aReplayIsConfirmedThenRepublishesTheLetterToItsDeadLetterTopicsInputWhateverItsHeadersSay() async throws {
        try await Self.withConsole { system, console in
            // The letter's dlq.topic header names account.requests; it sits on registration.requests.dlq.
            let (planted, position) = try await system.plantDeadLetter(email: Routes.email("planted"), headerTopic: Topic.accountRequests)
            let page = try await Self.overview(console) { $0.contains(planted.registrationId) }
            let confirm = await Self.post(console, "/replay", form: "token=\(try Self.token(in: page))&letter=\(position)")
            #expect(confirm.status == 200 && confirm.text.contains("Replay this dead letter?") && confirm.text.contains(planted.registrationId))
            #expect(confirm.text.contains("It goes back to \(Topic.registrationRequests) as it is."))
            let replayed = await Self.post(console, "/replay", form: "token=\(try Self.token(in: confirm))&letter=\(position)&confirm=yes")
            #expect(replayed.status == 200 && replayed.text.contains("to \(Topic.registrationRequests)"), "\(replayed.text)")
            guard case .registrationCompleted = try await system.waitForOutcomes([planted.registrationId])[planted.registrationId]?.first else {
                Issue.record("the replayed request did not complete"); return
            }
            #expect(try await system.messageCount(on: Topic.accountRequests, key: planted.registrationId) == 0, "not where the header says")
        }
    }

    @Test func aReplayWithoutAFreshTokenIs403() async throws {
        try await Self.withConsole { system, console in
            let (planted, position) = try await system.plantDeadLetter(email: Routes.email("planted"))
            _ = try await Self.overview(console) { $0.contains(planted.registrationId) }
            #expect(await Self.post(console, "/replay", form: "letter=\(position)&confirm=yes").status == 403)
            #expect(await Self.post(console, "/replay", form: "token=forged&letter=\(position)&confirm=yes").status == 403)
            let token = try Self.token(in: await Self.get(console, "/"))
            #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)").status == 200)
            #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)&confirm=yes").status == 403, "a used token")
        }
    }

    @Test func aReplayFromAnotherSiteIs403() async throws {
        try await Self.withConsole { system, console in
            let (planted, position) = try await system.plantDeadLetter(email: Routes.email("planted"))
            _ = try await Self.overview(console) { $0.contains(planted.registrationId) }
            for headers in [[("Sec-Fetch-Site", "cross-site"), ("Origin", "https://evil.example")], [("Origin", "null")],
                            [("Sec-Fetch-Site", "same-site"), ("Origin", "http://console.test:9999")]] {
                let token = try Self.token(in: await Self.get(console, "/"))
                let refused = await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)&confirm=yes", headers: headers)
                #expect(refused.status == 403, "\(headers)")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 0, "nothing replayed")
        }
    }

    @Test func aReplayOfAMessageNoDeadLetterIs404() async throws {
        try await Self.withConsole { system, console in
            let (planted, _) = try await system.plantDeadLetter(email: Routes.email("planted"))
            let token = try Self.token(in: try await Self.overview(console) { $0.contains(planted.registrationId) })
            #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(Topic.registrationRequests):0:0&confirm=yes").status == 404)
        }
    }

    @Test func aWrongMethodIs405AndAnUnknownPage404() async throws {
        try await Self.withConsole { _, console in
            let replay = await Self.get(console, "/replay")
            #expect(replay.status == 405 && replay.header("Allow") == "POST")
            let overview = await Self.post(console, "/", form: "")
            #expect(overview.status == 405 && overview.header("Allow") == "GET")
            #expect(await Self.get(console, "/nowhere").status == 404)
        }
    }
}
