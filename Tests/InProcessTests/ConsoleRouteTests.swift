import Console
import Domain
import Foundation
import HTTPServer
import Kafka
import Registration
@testable import TestSupport
import Testing

/// Every route of the operator console and every answer it gives, through `Console.handle` in the test process on
/// the in-process workers (the route tier); `ConsoleTests` drives the process with a real browser.
@Suite(.tags(.routes)) struct ConsoleRouteTests {
    /// A console on the shared in-process system.
    static func console() async throws -> (InProcessSystem, Console) {
        let system = try await InProcessSystem.shared()
        let audit = RegistrationAudit(accounts: try system.backends.accounts(), profiles: try system.backends.profiles(),
                                      images: try system.backends.objects())
        return (system, try Console(kafka: system.kafka, isLocalBroker: true, audit: audit, grace: .seconds(300), refresh: 5, tls: false))
    }

    static func get(_ console: Console, _ path: String) async -> Routes.Answer {
        Routes.Answer(await console.handle(HTTPRequest(method: "GET", path: path, headers: HTTPHeaders([("Host", "console.test")]))))
    }

    static func post(_ console: Console, _ path: String, form: String, headers: [(String, String)] = []) async -> Routes.Answer {
        Routes.Answer(await console.handle(HTTPRequest(method: "POST", path: path,
                                                       headers: HTTPHeaders([("Host", "console.test"), ("Content-Type", "application/x-www-form-urlencoded")] + headers),
                                                       body: Array(form.utf8))))
    }

    /// The CSRF token of the first form of a page.
    static func token(in page: Routes.Answer) throws -> String {
        let start = try #require(page.text.range(of: "name=\"token\" value=\""), "no form token")
        return String(page.text[start.upperBound...].prefix { $0 != "\"" })
    }

    /// A dead letter planted on `registration.requests.dlq`: a valid registration request; its position.
    static func plantDeadLetter(_ system: InProcessSystem) async throws -> (RegistrationRequested, String) {
        let planted = system.request(email: Routes.email("planted"))
        let headers = [("dlq.reason", "step_failed"), ("dlq.topic", Topic.registrationRequests), ("dlq.offset", "0"), ("dlq.worker", "account-worker")]
        try await system.client.publish(OutgoingMessage(
            topic: Topic.deadLetters(of: Topic.registrationRequests), key: planted.registrationId,
            value: EventCodec.encode(.registrationRequested(planted)), headers: headers.map { KafkaHeader(key: $0.0, value: Array($0.1.utf8)) }))
        let letter = try #require(try await system.allTopicMessages().first {
            $0.topic == Topic.deadLetters(of: Topic.registrationRequests) && $0.keyString == planted.registrationId
        })
        return (planted, "\(letter.topic):\(letter.partition):\(letter.offset)")
    }

    @Test func theOverviewShowsARegistrationWithItsPathUnderTheSecurityHeaders() async throws {
        let (system, console) = try await Self.console()
        let uid = try await system.register(Routes.email("overview"), password: "console overview password")
        let page = await Self.get(console, "/")
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("RegistrationCompleted") && page.text.contains("<td>account-worker</td>"), "\(page.text.prefix(400))")
        #expect(try system.backends.accounts().account(uid: uid) != nil)
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none';") == true && page.header("X-Frame-Options") == "DENY")
    }

    @Test func aReplayIsConfirmedThenRepublishesTheLetter() async throws {
        let (system, console) = try await Self.console()
        let (planted, position) = try await Self.plantDeadLetter(system)
        let confirm = await Self.post(console, "/replay", form: "token=\(try Self.token(in: await Self.get(console, "/")))&letter=\(position)")
        #expect(confirm.status == 200 && confirm.text.contains("Replay this dead letter?") && confirm.text.contains(planted.registrationId))
        let replayed = await Self.post(console, "/replay", form: "token=\(try Self.token(in: confirm))&letter=\(position)&confirm=yes")
        #expect(replayed.status == 200 && replayed.text.contains("to \(Topic.registrationRequests)"), "\(replayed.text)")
        guard case .registrationCompleted = try await system.waitForOutcomes([planted.registrationId])[planted.registrationId]?.first else {
            Issue.record("the replayed request did not complete"); return
        }
    }

    @Test func aReplayWithoutAFreshTokenIs403() async throws {
        let (system, console) = try await Self.console()
        let (_, position) = try await Self.plantDeadLetter(system)
        #expect(await Self.post(console, "/replay", form: "letter=\(position)&confirm=yes").status == 403)
        #expect(await Self.post(console, "/replay", form: "token=forged&letter=\(position)&confirm=yes").status == 403)
        let token = try Self.token(in: await Self.get(console, "/"))
        #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)").status == 200)
        #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)&confirm=yes").status == 403, "a used token")
    }

    @Test func aReplayFromAnotherSiteIs403() async throws {
        let (system, console) = try await Self.console()
        let (_, position) = try await Self.plantDeadLetter(system)
        let token = try Self.token(in: await Self.get(console, "/"))
        let refused = await Self.post(console, "/replay", form: "token=\(token)&letter=\(position)&confirm=yes",
                                      headers: [("Sec-Fetch-Site", "cross-site"), ("Origin", "https://evil.example")])
        #expect(refused.status == 403)
    }

    @Test func aReplayOfAMessageNoDeadLetterIs404() async throws {
        let (system, console) = try await Self.console()
        _ = try await Self.plantDeadLetter(system)
        let token = try Self.token(in: await Self.get(console, "/"))
        #expect(await Self.post(console, "/replay", form: "token=\(token)&letter=\(Topic.registrationRequests):0:0&confirm=yes").status == 404)
    }

    @Test func aWrongMethodIs405AndAnUnknownPage404() async throws {
        let (_, console) = try await Self.console()
        let replay = await Self.get(console, "/replay")
        #expect(replay.status == 405 && replay.header("Allow") == "POST")
        let overview = await Self.post(console, "/", form: "")
        #expect(overview.status == 405 && overview.header("Allow") == "GET")
        #expect(await Self.get(console, "/nowhere").status == 404)
    }
}
