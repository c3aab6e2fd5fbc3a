import Accounts
import Crypto
import EventTransport
import Foundation
import HTTPServer
import Kafka
import Support
import Synchronization

/// The operator console's answers, for operators only (`ConsoleGuard`: a host name of the console's, an operator's
/// credentials): the overview on `GET /`, rendered from what `ConsoleReader` keeps up to date in the background,
/// and the guarded replay of a dead letter on `POST /replay` (a CSRF token from the page it came from, same-origin
/// only, then a confirmation step) to the input topic its dead-letter topic belongs to.
public final class Console: Sendable {
    public struct Settings: Sendable {
        /// The operators who may sign in.
        public var operators: OperatorFile
        /// The names the console answers to in `Host` (besides its listening address; see `ConsoleGuard`).
        public var hostNames: Set<String>
        public var tls = false
        /// Seconds between the overview's reloads, and between the reader's refreshes.
        public var refresh = 5
        /// Seconds between audits of the stores.
        public var auditEvery = 300
        /// How long a registration may be in flight before it counts as stuck.
        public var grace: Duration = .seconds(300)
        /// The most messages of each partition the console keeps (its window).
        public var perPartition = 1000
        /// The local mock broker (no lookup by time, no DescribeGroups).
        public var isLocalBroker = false

        public init(operators: OperatorFile, hostNames: Set<String>) {
            self.operators = operators
            self.hostNames = hostNames
        }
    }

    let settings: Settings
    /// The broker the console reads and replays to now, and the reader of its topics (both replaced when a local
    /// broker moves: see `run(following:)`).
    private let session: Mutex<(kafka: KafkaConfiguration, reader: ConsoleReader)>
    private let audit: RegistrationAudit
    private let access: ConsoleGuard
    private let tokens = FormTokens()
    private let logger = Logger(component: "console")

    public init(kafka: KafkaConfiguration, audit: RegistrationAudit, settings: Settings) throws {
        self.settings = settings
        self.audit = audit
        access = ConsoleGuard(operators: settings.operators, hostNames: settings.hostNames)
        session = Mutex((kafka, try ConsoleReader(kafka: kafka, audit: audit, settings: ConsoleReader.Settings(
            perPartition: settings.perPartition, refresh: .seconds(settings.refresh), auditEvery: .seconds(settings.auditEvery),
            grace: settings.grace, isLocalBroker: settings.isLocalBroker))))
    }

    var kafka: KafkaConfiguration { session.withLock { $0.kafka } }
    var reader: ConsoleReader { session.withLock { $0.reader } }

    /// Keeps what the console shows up to date until cancelled. With `bootstrapFile`, the address file of the local
    /// broker the console found its broker in, it follows that broker across restarts as the workers do: on a new
    /// address a new reader reads the new broker's topics (and replays go there).
    public func run(following bootstrapFile: String? = nil) async {
        guard let bootstrapFile else { return await reader.run() }
        let stop = ShutdownSignal(signals: [])
        await withTaskCancellationHandler {
            try? await BrokerFollower(file: bootstrapFile).run(from: kafka.bootstrapServers, until: stop, logger: logger) { address, moved in
                do {
                    let reader = try self.reader(on: address)
                    let reading = Task { await reader.run() }
                    await moved.wait()
                    reading.cancel()
                    await reading.value
                } catch {
                    logger.error("cannot read the moved broker; waiting for its next address", ["broker": address, "error": String(describing: error)])
                    await moved.wait()
                }
            }
        } onCancel: {
            stop.trigger()
        }
    }

    /// The reader of the broker at `address`: the current one, or a new one (and the broker replays go to) if it moved.
    private func reader(on address: String) throws -> ConsoleReader {
        try session.withLock { session in
            guard session.kafka.bootstrapServers != address else { return session.reader }
            var kafka = session.kafka
            kafka.bootstrapServers = address
            session = (kafka, try ConsoleReader(kafka: kafka, audit: audit, settings: session.reader.settings))
            return session.reader
        }
    }

    /// Refreshes what the console shows once, now (as the reader does on its schedule).
    public func refresh() async { await reader.refresh() }

    /// How many messages the console holds in its window now.
    public var windowSize: Int { reader.current.messages.values.reduce(0) { $0 + $1.count } }

    /// Whether the console has read its window and sampled the groups at least once.
    public var isReady: Bool { reader.current.refreshedAt != nil && reader.current.audit != nil }

    /// Why the console cannot show what is happening now (its `/readyz`): empty while it reads the topics and the
    /// consumer groups and the last audit read the stores.
    public var notReadyBecause: [String] {
        let state = reader.current
        var reasons = state.problems.sorted { $0.key < $1.key }.map { "cannot read the \($0.key): \($0.value)" }
        if state.offsets.isEmpty, state.problems["topics"] == nil { reasons.append("has not read the topics yet") }
        if case .failure(let error)? = state.audit?.findings { reasons.append("the audit cannot read the stores: \(error)") }
        return reasons
    }

    /// No scripts, nothing loaded from elsewhere; the one style sheet by its hash; forms post only here.
    static let policy = "default-src 'none'; style-src 'sha256-\(Data(sha256(Array(HTML.styleSheet.utf8))).base64EncodedString())'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The largest body a replay form sends.
    public static let bodyLimit = 4 * 1024

    /// Answers `request` with the security headers, and logs one line.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var response = if let refusal = await access.refusal(of: request) { refusal } else { await route(request) }
        response.addSecurityHeaders(tls: settings.tls, policy: Self.policy)
        logger.info("request", ["method": request.method, "path": request.path, "status": response.status, "client": request.clientAddress])
        return response
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/"):
            let page = ConsolePage.overview(reader.current, at: Date(), grace: settings.grace, refresh: settings.refresh, token: tokens.issue())
            return ConsolePage.answer(200, page)
        case ("POST", "/replay"):
            return await replay(request)
        case (_, "/"), (_, "/replay"):
            var response = ConsolePage.answer(405, ConsolePage.problem("Method \(request.method) is not allowed here."))
            response.headers.add("Allow", request.path == "/" ? "GET" : "POST")
            return response
        default:
            return ConsolePage.answer(404, ConsolePage.problem("No such page."))
        }
    }

    private func replay(_ request: HTTPRequest) async -> HTTPResponse {
        guard isSameOrigin(request) else { return ConsolePage.answer(403, ConsolePage.problem("A request from another site is refused.")) }
        let form = FormBody(request.body)
        guard let token = form["token"], tokens.redeem(token) else {
            return ConsolePage.answer(403, ConsolePage.problem("This form has expired or was used already; reload the console and try again."))
        }
        do {
            guard let position = form["letter"], let letter = try await deadLetter(at: position) else {
                return ConsolePage.answer(404, ConsolePage.problem("No such dead letter."))
            }
            guard form["confirm"] == "yes" else { return ConsolePage.answer(200, ConsolePage.confirmation(letter, token: tokens.issue())) }
            let lines = try await DeadLetterCommand.replay([letter], kafka: kafka)
            logger.info("dead letter replayed", ["letter": position, "client": request.clientAddress])
            return ConsolePage.answer(200, ConsolePage.replayed(lines))
        } catch {
            logger.error("replay failed", ["error": String(describing: error)])
            return ConsolePage.answer(503, ConsolePage.problem("The replay failed: \(error)"))
        }
    }

    /// The dead letter at `topic:partition:offset`, nil when there is none (or the topic is no dead-letter topic).
    private func deadLetter(at position: String) async throws -> KafkaMessage? {
        let parts = position.split(separator: ":")
        guard parts.count == 3, DeadLetterCommand.topics.contains(String(parts[0])),
              let partition = Int32(parts[1]), let offset = Int64(parts[2]) else { return nil }
        return try await TopicSnapshot.message(at: offset, of: TopicPartition(topic: String(parts[0]), partition: partition), configuration: kafka)
    }

    /// Whether the browser says the request comes from the console's own pages (a request without the headers, e.g.
    /// from curl, still needs a token from a page). The console's pages send no referrer, so a browser sends their
    /// forms' origin as `null`: that counts only with `Sec-Fetch-Site: same-origin` (a sandboxed frame or a `data:`
    /// page elsewhere sends `null` too, but as another site).
    private func isSameOrigin(_ request: HTTPRequest) -> Bool {
        let site = request.headers["Sec-Fetch-Site"]
        if let site, !["same-origin", "none"].contains(site) { return false }
        switch request.headers["Origin"] {
        case nil: return true
        case "null"?: return site == "same-origin"
        case let origin?: return origin == "\(settings.tls ? "https" : "http")://\(request.headers["Host"] ?? "")"
        }
    }
}
