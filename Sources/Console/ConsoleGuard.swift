import Crypto
import Foundation
import HTTPServer
import Support
import Synchronization

/// Who may use the console, and under which name. Every request, before anything is read:
/// - names one of the console's host names in `Host` (any port), else 421: a page whose own DNS name was
///   rebound to the console's address (DNS rebinding) is not the console's origin, whatever it sends;
/// - carries an operator's credentials (HTTP Basic, checked against the operators file), else 401 with the challenge;
/// - comes from an address that has not sent wrong credentials `failureLimit` times in the last minute, else 429.
/// A verified `Authorization` value is remembered (by its SHA-256) for `memory`, so that reloads cost no argon2id hash.
final class ConsoleGuard: Sendable {
    static let realm = "Registrar console"

    private let operators: OperatorFile
    private let hostNames: Set<String>
    private let failureLimit: Int
    private let memory: Duration
    private let verified = Mutex<[String: ContinuousClock.Instant]>([:])
    private let failures = Mutex<(start: ContinuousClock.Instant, counts: [String: Int])>((.now, [:]))
    private let logger = Logger(component: "console")

    /// `hostNames`: the names the console answers to (compared without their port, ignoring case).
    init(operators: OperatorFile, hostNames: Set<String>, failureLimit: Int = 10, memory: Duration = .seconds(300)) {
        self.operators = operators
        self.hostNames = Set(hostNames.map { $0.lowercased() })
        self.failureLimit = failureLimit
        self.memory = memory
    }

    /// The answer refusing `request`, or nil when it may be served.
    func refusal(of request: HTTPRequest) async -> HTTPResponse? {
        guard let host = request.headers["Host"].flatMap(Self.name(inHost:)), hostNames.contains(host) else {
            logger.warning("refused: a host name the console does not answer to", ["host": String((request.headers["Host"] ?? "").prefix(100)),
                                                                                   "client": request.clientAddress])
            return ConsolePage.answer(421, ConsolePage.problem("This console does not answer to that host name.", linked: false))
        }
        if let wait = lockedOut(request.clientAddress) {
            var response = ConsolePage.answer(429, ConsolePage.problem("Too many wrong credentials from this address; wait a minute.", linked: false))
            response.headers.add("Retry-After", String(wait))
            return response
        }
        guard let authorization = request.headers["Authorization"] else { return challenge() }
        let key = sha256Hex(Array(authorization.utf8))
        let now = ContinuousClock.now
        if verified.withLock({ $0[key].map { now < $0 } ?? false }) { return nil }
        guard let (name, password) = Self.basicCredentials(authorization),
              (try? await offload { [operators] in operators.verify(name: name, password: password) }) == true else {
            failed(request.clientAddress)
            logger.warning("refused: wrong operator credentials", ["client": request.clientAddress])
            return challenge()
        }
        verified.withLock { entries in
            entries = entries.filter { now < $0.value }
            entries[key] = now + memory
        }
        return nil
    }

    private func challenge() -> HTTPResponse {
        var response = ConsolePage.answer(401, ConsolePage.problem("Operators only: sign in with your console credentials.", linked: false))
        response.headers.add("WWW-Authenticate", "Basic realm=\"\(Self.realm)\", charset=\"UTF-8\"")
        return response
    }

    /// Seconds until `address` may try again, when it has used up its wrong credentials for this minute.
    private func lockedOut(_ address: String) -> Int? {
        failures.withLock { state in
            let now = ContinuousClock.now
            if now - state.start >= .seconds(60) { state = (now, [:]) }
            guard state.counts[address, default: 0] >= failureLimit else { return nil }
            return max(1, 60 - Int((now - state.start).components.seconds))
        }
    }

    private func failed(_ address: String) {
        failures.withLock { $0.counts[address, default: 0] += 1 }
    }

    /// The host name of a `Host` header, without its port and any final dot, lowercased; nil when malformed.
    static func name(inHost host: String) -> String? {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") {
            guard let end = name.firstIndex(of: "]") else { return nil }
            name = name[...end]
        } else if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.isEmpty ? nil : String(name)
    }

    /// The name and password of a `Basic` authorization, nil for any other.
    static func basicCredentials(_ authorization: String) -> (String, String)? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The host names a console listening on `host` answers to besides `configured`: the address itself, and on a
    /// loopback address `localhost` too.
    static func hostNames(listeningOn host: String, configured: [String]) -> Set<String> {
        var names = Set(configured.map { $0.lowercased() })
        names.insert(host.contains(":") ? "[\(host)]" : host)
        if HTTPServerConfiguration.isLoopback(host) { names.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
        return names
    }
}
