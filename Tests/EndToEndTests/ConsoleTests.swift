import Domain
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// `registrar console` in headless Chromium (driven through the DevTools protocol by `Tests/Browser/browser.py`) and
/// curl: an operator's browser sees a registration the test made and a dead letter it planted, hostile text in the
/// letter escaped; a registration and an email change held up (the profile store locked) are shown stuck with their
/// paths; a replay through the page's forms ends in an outcome. The attacks: no credentials, wrong ones, a page on
/// another site driving the operator's browser, a page whose DNS name was rebound to the console's address — each
/// reads nothing and replays nothing. Systems of their own: the tests sharing one count the dead letters on its topics.
@Suite(.tags(.live), .serialized) struct ConsoleTests {
    static let hostile = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"
    static let credentials = "ops:correct horse battery staple"
    /// The header an operator's browser sends once signed in.
    static let authorization = "Authorization: Basic " + Data(credentials.utf8).base64EncodedString()

    /// A console on `system` (with an operators file made by `registrar console add-operator`), its URL, and its log.
    static func startConsole(_ system: LiveSystem, _ extra: [String] = []) async throws -> (ChildProcess, String) {
        let operators = system.directory + "/console-operators"
        #expect(try await addOperator(to: operators) == 0)
        let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "127.0.0.1:0", "--grace", "2", "--refresh", "1",
                                                                    "--data-dir", system.directory, "--operators", operators] + extra,
                                       environment: system.backends.environment, errors: .file("\(system.logs)/console.log"))
        guard let url = await console.nextLine() else {
            throw HarnessError("the console exited (\(await console.waitForExit())): "
                               + ((try? String(contentsOfFile: "\(system.logs)/console.log", encoding: .utf8)) ?? "no log"))
        }
        #expect(url.hasPrefix("http://127.0.0.1:"))
        return (console, url)
    }

    /// The console's overview (as the operator) once it shows `text`; fails after 30 s.
    static func overview(_ url: String, showing text: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let page = try await curl(url, credentials: credentials).body
            if page.contains(text) { return page }
            guard ContinuousClock.now < deadline else { throw HarnessError("the console never showed \(text)") }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    @Test func theConsoleShowsFlowsAndDeadLettersAndReplaysThroughTheBrowser() async throws {
        try await LiveSystem.with { system in
            let made = try await system.request(email: "console-made@example.com")
            guard case .registrationCompleted = try await system.send(.registrationRequested(made)) else {
                Issue.record("the test's registration did not complete"); return
            }
            let code = try await system.code(for: "console-moved@example.com", .changeEmail)
            // Started first: it opens the stores (and would wait for the lock below).
            let (console, url) = try await Self.startConsole(system)
            defer { console.send(SIGTERM) }
            // With the profile store locked, a registration and an email change are held up at their profile step.
            let lock = try await system.backends.lockProfiles(logs: system.logs)
            let held = try await system.request(email: "console-held@example.com")
            try await system.publish([held])
            let move = Event.emailChangeRequested(system.client.emailChange(
                email: made.email, password: "correct horse battery", newEmail: "console-moved@example.com", code: code))
            guard case .updateProfileEmail = try await system.send(move, awaiting: Topic.profileCommands) else {
                Issue.record("the email change asked no profile update"); return
            }
            let (planted, position) = try await system.plantDeadLetter(email: "console-planted@example.com", error: Self.hostile)

            let head = try await Self.curl(url, credentials: Self.credentials, arguments: ["-D", "-", "-o", "/dev/null"]).body
            for header in ["Content-Security-Policy: default-src 'none';", "X-Frame-Options: DENY", "X-Content-Type-Options: nosniff", "Cache-Control: no-store"] {
                #expect(head.contains(header), "\(head)")
            }
            // The held registration waits at WriteProfile for longer than the grace.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await !system.allTopicMessages().contains(where: { $0.topic == Topic.profileCommands && $0.keyString == held.registrationId }),
                  ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(3))
            _ = try await Self.overview(url, showing: planted.registrationId)
            let screenshot = system.logs + "/console.png"
            let overview = try #require(try await Self.browse(url, headers: [Self.authorization], screenshot: screenshot).first).html
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
            #expect(overview.contains("<svg class=\"chart\""), "the charts")
            #expect(FileManager.default.fileExists(atPath: screenshot))

            guard case .accountChangeCompleted = try await system.client.outcome(of: move, timeout: .seconds(60), after: {
                await system.backends.releaseProfiles(lock)
            }) else { Issue.record("the email change did not complete once the profile store was back"); return }
            let pages = try await Self.browse(url, headers: [Self.authorization], steps: [
                ("click", "form[data-letter=\"\(position)\"] button"), ("click", "form[action=\"/replay\"] button"),
            ])
            try #require(pages.count == 3, "\(pages.map(\.url))")
            #expect(pages[1].html.contains("Replay this dead letter?") && pages[1].html.contains(planted.registrationId))
            let parts = position.split(separator: ":")
            #expect(pages[2].html.contains("replayed \(parts[0]) \(parts[1]):\(parts[2]) to \(Topic.registrationRequests)"), "\(pages[2].html)")

            let outcomes = try await system.waitForOutcomes([planted.registrationId, held.registrationId])
            guard case .registrationCompleted = outcomes[planted.registrationId]?.first else {
                Issue.record("the replayed request had no completed outcome: \(outcomes[planted.registrationId] ?? [])"); return
            }
            guard case .registrationCompleted = outcomes[held.registrationId]?.first else {
                Issue.record("the held registration did not complete once the profile store was back: \(outcomes[held.registrationId] ?? [])"); return
            }
            // The confirmation page's token was used by the replay: sent again, it replays nothing.
            let used = try #require(Self.token(in: pages[1].html))
            #expect(try await Self.curl(url + "replay", form: "token=\(used)&letter=\(position)&confirm=yes", credentials: Self.credentials).status == 403)
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 1, "one replay, through the page")

            console.send(SIGTERM)
            let stopping = ContinuousClock.now + .seconds(20)
            while console.isRunning, ContinuousClock.now < stopping { try await Task.sleep(for: .milliseconds(100)) }
            #expect(!console.isRunning, "the console stops on SIGTERM")
        }
    }

    /// curl plays the attacker on the network: no credentials, wrong ones, a guessed token, a Host the console does not
    /// answer to, another site's origin. Nothing is read, nothing replayed.
    @Test func withoutAnOperatorsCredentialsOrNameNothingIsReadOrReplayed() async throws {
        try await LiveSystem.shared(by: "ConsoleTests") { system in
            let (console, url) = try await Self.startConsole(system)
            defer { console.send(SIGTERM) }
            let (planted, position) = try await system.plantDeadLetter(email: "console-curl@example.com")
            let page = try await Self.overview(url, showing: planted.registrationId)
            let token = try #require(Self.token(in: page))
            let port = try #require(URL(string: url)?.port)
            for credentials in [nil, "ops:wrong password entirely", "mallory:correct horse battery staple"] as [String?] {
                let read = try await Self.curl(url, credentials: credentials, arguments: ["-D", "-"])
                #expect(read.status == 401, "\(credentials ?? "none")")
                #expect(read.body.contains("WWW-Authenticate: Basic realm=\"Registrar console\""))
                #expect(!read.body.contains(planted.registrationId) && !read.body.contains("account-worker"), "nothing read")
                let replay = try await Self.curl(url + "replay", form: "token=\(token)&letter=\(position)&confirm=yes", credentials: credentials)
                #expect(replay.status == 401)
            }
            // The right credentials under a name the console does not answer to (DNS rebinding), and from another site.
            let rebound = ["--resolve", "rebind.attacker.example:\(port):127.0.0.1"]
            let rebindURL = "http://rebind.attacker.example:\(port)/"
            let read = try await Self.curl(rebindURL, credentials: Self.credentials, arguments: rebound)
            #expect(read.status == 421 && !read.body.contains(planted.registrationId))
            let replay = try await Self.curl(rebindURL + "replay", form: "token=\(token)&letter=\(position)&confirm=yes", credentials: Self.credentials,
                                             headers: ["Origin: http://rebind.attacker.example:\(port)", "Sec-Fetch-Site: same-origin"],
                                             arguments: rebound)
            #expect(replay.status == 421)
            let crossSite = try await Self.curl(url + "replay", form: "token=\(token)&letter=\(position)&confirm=yes", credentials: Self.credentials,
                                                headers: ["Origin: https://evil.example", "Sec-Fetch-Site: cross-site"])
            #expect(crossSite.status == 403)
            #expect(try await Self.curl(url + "replay", form: "token=guessed&letter=\(position)&confirm=yes", credentials: Self.credentials).status == 403)
            try await Task.sleep(for: .seconds(1))
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 0, "nothing replayed")
            let log = try String(contentsOfFile: "\(system.logs)/console.log", encoding: .utf8)
            #expect(log.contains("refused: wrong operator credentials") && log.contains("refused: a host name the console does not answer to"))
        }
    }

    /// A page on another site, open in the operator's signed-in browser (its credentials sent with every request, the
    /// worst case), tries to read the console with fetch and to replay a letter with a form holding a valid token.
    @Test func aPageOnAnotherSiteReadsNothingAndReplaysNothingThroughTheOperatorsBrowser() async throws {
        try await LiveSystem.shared(by: "ConsoleTests") { system in
            let (console, url) = try await Self.startConsole(system)
            defer { console.send(SIGTERM) }
            let (planted, position) = try await system.plantDeadLetter(email: "console-csrf@example.com")
            let token = try #require(Self.token(in: try await Self.overview(url, showing: planted.registrationId)))
            let site = try await AttackSite.start(page: """
                <!DOCTYPE html><html><body><pre id="read">pending</pre>
                <form id="replay" method="post" action="\(url)replay"><input name="token" value="\(token)">\
                <input name="letter" value="\(position)"><input name="confirm" value="yes"></form>
                <script>
                fetch("\(url)", {credentials: "include"}).then(r => r.text())
                  .then(t => { document.getElementById("read").textContent = "read " + t.length + " bytes: " + t.slice(0, 200); },
                        e => { document.getElementById("read").textContent = "blocked: " + e; });
                </script></body></html>
                """)
            defer { site.stop() }
            let pages = try await Self.browse("http://evil.example:\(site.port)/attack.html", headers: [Self.authorization],
                                              resolve: ["MAP evil.example 127.0.0.1"], steps: [
                                                  ("wait", "document.getElementById('read').textContent !== 'pending'"),
                                                  ("run", "document.getElementById('replay').submit()"),
                                              ])
            try #require(pages.count == 3, "\(pages.map(\.url))")
            #expect(pages[1].html.contains("blocked: TypeError"), "the page could not read the console: \(pages[1].html)")
            #expect(!pages[1].html.contains(planted.registrationId))
            #expect(pages[2].url == url + "replay" && pages[2].html.contains("A request from another site is refused."), "\(pages[2].html)")
            try await Task.sleep(for: .seconds(1))
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 0, "nothing replayed")
        }
    }

    /// DNS rebinding: a page the operator opened at rebind.attacker.example, whose name now resolves to the console's
    /// address, reads and posts to the console as its own origin (credentials sent, a valid token in hand).
    @Test func aPageWhoseNameWasReboundToTheConsoleReadsNothingAndReplaysNothing() async throws {
        try await LiveSystem.shared(by: "ConsoleTests") { system in
            let (console, url) = try await Self.startConsole(system)
            defer { console.send(SIGTERM) }
            let (planted, position) = try await system.plantDeadLetter(email: "console-rebind@example.com")
            let token = try #require(Self.token(in: try await Self.overview(url, showing: planted.registrationId)))
            let port = try #require(URL(string: url)?.port)
            let submit = """
                (() => { const form = document.createElement("form"); form.method = "post"; form.action = "/replay";
                  for (const [name, value] of [["token", "\(token)"], ["letter", "\(position)"], ["confirm", "yes"]]) {
                    const input = document.createElement("input"); input.name = name; input.value = value; form.appendChild(input); }
                  document.body.appendChild(form); form.submit(); })()
                """
            let pages = try await Self.browse("http://rebind.attacker.example:\(port)/", headers: [Self.authorization],
                                              resolve: ["MAP rebind.attacker.example 127.0.0.1"], steps: [("run", submit)])
            try #require(pages.count == 2, "\(pages.map(\.url))")
            #expect(pages[0].html.contains("This console does not answer to that host name."))
            #expect(!pages[0].html.contains(planted.registrationId) && !pages[0].html.contains("account-worker"), "nothing read")
            #expect(pages[1].url.hasSuffix("/replay") && pages[1].html.contains("This console does not answer to that host name."))
            try await Task.sleep(for: .seconds(1))
            #expect(try await system.messageCount(on: Topic.registrationRequests, key: planted.registrationId) == 0, "nothing replayed")
        }
    }

    @Test func plainHTTPOffLoopbackIsRefusedBeforeAnyStoreIsOpened() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/console-refused-\(UUID().uuidString.prefix(8))"
        let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "0.0.0.0:0", "--bootstrap", "127.0.0.1:1",
                                                                    "--data-dir", directory, "--operators", directory + "/operators"],
                                       errors: .standardOutput)
        var lines: [String] = []
        while let line = await console.nextLine() { lines.append(line) }
        #expect(await console.waitForExit() != 0)
        #expect(lines.joined().contains("plain HTTP is served only on a loopback address"), "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: directory), "no store made")
    }

    @Test func anOperatorsFileOpenToOthersIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/console-operators-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/operators"
        #expect(try await Self.addOperator(to: file) == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("ops:$argon2id$") && !text.contains("correct horse"), "stored hashed")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        chmod(file, 0o644)
        let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "127.0.0.1:0", "--bootstrap", "127.0.0.1:1",
                                                                    "--data-dir", directory, "--operators", file], errors: .standardOutput)
        var lines: [String] = []
        while let line = await console.nextLine() { lines.append(line) }
        #expect(await console.waitForExit() != 0)
        #expect(lines.joined().contains("chmod 600 \(file)"), "\(lines)")
    }

    /// Runs `registrar console add-operator ops` on `file`, the password on standard input; its exit status.
    static func addOperator(to file: String) async throws -> Int32 {
        let add = try ChildProcess(Binaries.path("registrar"), ["console", "add-operator", "ops", "--operators", file], input: .pipe)
        add.write(Array((credentials.split(separator: ":", maxSplits: 1)[1] + "\n").utf8))
        add.closeInput()
        while await add.nextLine() != nil {}
        return await add.waitForExit()
    }

    /// The pages Chromium renders: `url` (its screenshot saved to `screenshot`), then after each step (see browser.py).
    static func browse(_ url: String, headers: [String] = [], resolve: [String] = [], screenshot: String? = nil,
                       steps: [(String, String)] = []) async throws -> [(url: String, html: String)] {
        var arguments: [String] = [Binaries.packageRoot + "/Tests/Browser/browser.py", url]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        for header in headers { arguments += ["--header", header] }
        for rule in resolve { arguments += ["--resolve", rule] }
        for (step, value) in steps { arguments += ["--" + step, value] }
        let driver = try ChildProcess("/usr/bin/python3", arguments, errors: .standardOutput)
        var pages: [(url: String, html: String)] = []
        while let line = await driver.nextLine() {
            guard let page = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  let url = page["url"], let html = page["html"] else { Issue.record("browser: \(line)"); continue }
            pages.append((url, html))
        }
        #expect(await driver.waitForExit() == 0)
        return pages
    }

    /// A request with curl: a POST of `form` if given, else a GET, as `credentials` (`name:password`) if given; the
    /// status and body.
    static func curl(_ url: String, form: String? = nil, credentials: String? = nil, headers: [String] = [],
                     arguments: [String] = []) async throws -> (status: Int, body: String) {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments + headers.flatMap { ["-H", $0] }
                                    + (credentials.map { ["-u", $0] } ?? []) + (form.map { ["--data", $0] } ?? []) + [url], errors: .discarded)
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

/// A web site of the attacker's: `page` as `/attack.html`, served by Python's http.server on a port of 127.0.0.1.
struct AttackSite {
    let port: Int
    private let server: ChildProcess
    private let directory: String

    /// Serves `page` until `stop`.
    static func start(page: String) async throws -> AttackSite {
        let directory = FileManager.default.temporaryDirectory.path + "/attack-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try page.write(toFile: directory + "/attack.html", atomically: true, encoding: .utf8)
        let script = """
            import http.server, functools, sys
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1]))
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let server = try ChildProcess("/usr/bin/python3", ["-c", script, directory], errors: .discarded)
        guard let line = await server.nextLine(), let port = Int(line) else { throw HarnessError("the attack site did not start") }
        return AttackSite(port: port, server: server, directory: directory)
    }

    func stop() {
        server.send(SIGTERM)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// How a browser serializes text content: `&`, `<` and `>` as references.
enum HTMLText {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
