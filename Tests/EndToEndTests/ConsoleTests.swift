import Domain
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// `registrar console` in headless Chromium (driven through the DevTools protocol by `Tests/Browser/browser.py`):
/// the page shows a registration the test made and a dead letter it planted, hostile text in the letter escaped;
/// a registration and an email change held up (the profile store locked) are shown stuck with their paths; a replay through the page's forms
/// ends in an outcome; a replay without a fresh token from the console's own page changes nothing. A system of its
/// own: the tests sharing one count the dead letters on its topics.
@Suite(.tags(.live), .serialized) struct ConsoleTests {
    static let hostile = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"

    @Test func theConsoleShowsFlowsAndDeadLettersAndReplaysThroughTheBrowser() async throws {
        try await LiveSystem.with { system in
            let made = system.request(email: "console-made@example.com")
            guard case .registrationCompleted = try await system.send(.registrationRequested(made)) else {
                Issue.record("the test's registration did not complete"); return
            }
            let code = try await system.code(for: "console-moved@example.com", .changeEmail)
            // Started first: it opens the stores (and would wait for the lock below).
            let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "127.0.0.1:0", "--grace", "2", "--data-dir", system.directory],
                                           environment: system.backends.environment, errors: .file("\(system.logs)/console.log"))
            defer { console.send(SIGTERM) }
            let url = try #require(await console.nextLine())
            #expect(url.hasPrefix("http://127.0.0.1:"))
            // With the profile store locked, a registration and an email change are held up at their profile step.
            let lock = try await system.backends.lockProfiles(logs: system.logs)
            let held = system.request(email: "console-held@example.com")
            try await system.publish([held])
            let move = Event.emailChangeRequested(system.client.emailChange(
                email: made.email, password: "correct horse battery", newEmail: "console-moved@example.com", code: code))
            guard case .updateProfileEmail = try await system.send(move, awaiting: Topic.profileCommands) else {
                Issue.record("the email change asked no profile update"); return
            }
            // A dead letter planted by hand: a valid request, with hostile text in its headers.
            let planted = system.request(email: "console-planted@example.com")
            let headers = [("dlq.reason", "step_failed"), ("dlq.topic", Topic.registrationRequests), ("dlq.offset", "0"),
                           ("dlq.worker", "account-worker"), ("dlq.error", Self.hostile)]
            try await system.client.publish(OutgoingMessage(
                topic: Topic.deadLetters(of: Topic.registrationRequests), key: planted.registrationId,
                value: EventCodec.encode(.registrationRequested(planted)), headers: headers.map { KafkaHeader(key: $0.0, value: Array($0.1.utf8)) }))
            let letter = try #require(try await system.allTopicMessages().first {
                $0.topic == Topic.deadLetters(of: Topic.registrationRequests) && $0.keyString == planted.registrationId
            })
            let position = "\(letter.topic):\(letter.partition):\(letter.offset)"

            let head = try await Self.curl(url, headers: [], arguments: ["-D", "-", "-o", "/dev/null"]).body
            for header in ["Content-Security-Policy: default-src 'none';", "X-Frame-Options: DENY", "X-Content-Type-Options: nosniff", "Cache-Control: no-store"] {
                #expect(head.contains(header), "\(head)")
            }

            // Attacks: no token, a made-up one, a page's token sent from another site, the wrong method.
            let token = try #require(Self.token(in: try await Self.curl(url).body))
            #expect(try await Self.curl(url + "replay", form: "letter=\(position)&confirm=yes").status == 403)
            #expect(try await Self.curl(url + "replay", form: "token=forged&letter=\(position)&confirm=yes").status == 403)
            #expect(try await Self.curl(url + "replay", form: "token=\(token)&letter=\(position)&confirm=yes",
                                        headers: ["Sec-Fetch-Site: cross-site", "Origin: https://evil.example"]).status == 403)
            #expect(try await Self.curl(url + "replay").status == 405)
            // A good token does not make any other message replayable: only dead letters are.
            let fresh = try #require(Self.token(in: try await Self.curl(url).body))
            #expect(try await Self.curl(url + "replay", form: "token=\(fresh)&letter=\(Topic.registrationRequests):0:0&confirm=yes").status == 404)

            // The held registration waits at WriteProfile for longer than the grace.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await !system.allTopicMessages().contains(where: { $0.topic == Topic.profileCommands && $0.keyString == held.registrationId }),
                  ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(3))
            let screenshot = system.logs + "/console.png"
            let overview = try #require(try await Self.browse(url, screenshot: screenshot, clicking: []).first).html
            let inFlight = try #require(overview.range(of: "in flight").flatMap { start in
                overview.range(of: "Recently finished").map { String(overview[start.upperBound..<$0.lowerBound]) }
            })
            #expect(inFlight.contains(held.registrationId) && inFlight.contains("WriteProfile"), "the held registration with its path: \(inFlight)")
            #expect(inFlight.contains("email change") && inFlight.contains(move.key) && inFlight.contains("UpdateProfileEmail"),
                    "the held email change with its path")
            #expect(inFlight.contains(planted.registrationId), "the dead-lettered request, never answered")
            #expect(inFlight.components(separatedBy: "class=\"stuck\"").count - 1 == 3, "all three past the grace")
            #expect(!inFlight.contains(made.registrationId))
            #expect(overview.contains(made.registrationId), "the registration the test made")
            #expect(overview.contains(planted.registrationId) && overview.contains(position), "the planted dead letter")
            #expect(overview.contains(HTMLText.escaped(Self.hostile)), "the hostile header shown as text")
            #expect(!overview.lowercased().contains("<script") && !overview.contains("<img"), "no markup from the letter")
            #expect(overview.contains("RegistrationCompleted"), "outcomes by reason")
            #expect(overview.contains("<td>account-worker</td><td>"), "the workers' groups")
            #expect(FileManager.default.fileExists(atPath: screenshot))

            guard case .accountChangeCompleted = try await system.client.outcome(of: move, timeout: .seconds(60), after: {
                await system.backends.releaseProfiles(lock)
            }) else { Issue.record("the email change did not complete once the profile store was back"); return }
            let pages = try await Self.browse(url, clicking: [
                "form[data-letter=\"\(position)\"] button", "form[action=\"/replay\"] button",
            ])
            try #require(pages.count == 3, "\(pages.map(\.url))")
            #expect(pages[1].html.contains("Replay this dead letter?") && pages[1].html.contains(planted.registrationId))
            #expect(pages[2].html.contains("replayed \(letter.topic) \(letter.partition):\(letter.offset) to \(Topic.registrationRequests)"),
                    "\(pages[2].html)")

            let outcomes = try await system.waitForOutcomes([planted.registrationId, held.registrationId])
            guard case .registrationCompleted = outcomes[planted.registrationId]?.first else {
                Issue.record("the replayed request had no completed outcome: \(outcomes[planted.registrationId] ?? [])"); return
            }
            guard case .registrationCompleted = outcomes[held.registrationId]?.first else {
                Issue.record("the held registration did not complete once the profile store was back: \(outcomes[held.registrationId] ?? [])"); return
            }
            // The confirmation page's token was used by the replay: sent again, it replays nothing.
            let used = try #require(Self.token(in: pages[1].html))
            #expect(try await Self.curl(url + "replay", form: "token=\(used)&letter=\(position)&confirm=yes").status == 403)
            let republished = try await system.allTopicMessages().filter {
                $0.topic == Topic.registrationRequests && $0.keyString == planted.registrationId
            }
            #expect(republished.count == 1, "one replay, through the page")

            console.send(SIGTERM)
            let stopping = ContinuousClock.now + .seconds(20)
            while console.isRunning, ContinuousClock.now < stopping { try await Task.sleep(for: .milliseconds(100)) }
            #expect(!console.isRunning, "the console stops on SIGTERM")
        }
    }

    @Test func plainHTTPOffLoopbackIsRefusedBeforeAnyStoreIsOpened() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/console-refused-\(UUID().uuidString.prefix(8))"
        let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "0.0.0.0:0", "--bootstrap", "127.0.0.1:1",
                                                                    "--data-dir", directory],
                                       errors: .standardOutput)
        var lines: [String] = []
        while let line = await console.nextLine() { lines.append(line) }
        #expect(await console.waitForExit() != 0)
        #expect(lines.joined().contains("plain HTTP is served only on a loopback address"), "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: directory), "no store made")
    }

    /// The pages Chromium renders: `url` (its screenshot saved to `screenshot`), then the page each click in turn leads to.
    static func browse(_ url: String, screenshot: String? = nil, clicking selectors: [String]) async throws -> [(url: String, html: String)] {
        let driver = try ChildProcess("/usr/bin/python3", [Binaries.packageRoot + "/Tests/Browser/browser.py", url]
                                      + (screenshot.map { ["--screenshot", $0] } ?? []) + selectors.flatMap { ["--click", $0] },
                                      errors: .standardOutput)
        var pages: [(url: String, html: String)] = []
        while let line = await driver.nextLine() {
            guard let page = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  let url = page["url"], let html = page["html"] else { Issue.record("browser: \(line)"); continue }
            pages.append((url, html))
        }
        #expect(await driver.waitForExit() == 0)
        return pages
    }

    /// A request with curl: a POST of `form` if given, else a GET; the status and body.
    static func curl(_ url: String, form: String? = nil, headers: [String] = [], arguments: [String] = []) async throws -> (status: Int, body: String) {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments + headers.flatMap { ["-H", $0] }
                                    + (form.map { ["--data", $0] } ?? []) + [url], errors: .discarded)
        var lines: [String] = []
        while let line = await curl.nextLine() { lines.append(line) }
        _ = await curl.waitForExit()
        let status = Int(lines.popLast() ?? "") ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    /// The CSRF token of the first form in `html`.
    static func token(in html: String) -> String? {
        guard let start = html.range(of: "name=\"token\" value=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }
}

/// How a browser serializes text content: `&`, `<` and `>` as references.
enum HTMLText {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
