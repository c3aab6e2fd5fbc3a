import Curl
import Foundation
import Support
import Synchronization

/// A chaos run's app: it sends one request to the gateway with an `Idempotency-Key` it keeps across its retries,
/// as the apps do, and retries with that key while the answer is not final — a `202` (accepted, no outcome within
/// the gateway's wait), a `503` (the broker or the workers not answering yet), the gateway's own `429 rate_limited`,
/// or no answer at all (the gateway restarting) — once a second (the gateway's `Retry-After`). The first other
/// answer is its final answer; it then retries once more (through pending answers), which must give the same answer.
struct AppClient: Sendable {
    /// One request: its method, path, body and headers, and the key it keeps.
    struct Request: Sendable {
        var method = "POST"
        var path: String
        var key: String
        var contentType: String
        var body: [UInt8]
        /// The OAuth client's credentials (HTTP Basic), for the token endpoint.
        var client: (id: String, secret: String)?
        /// The access token it carries (`Authorization: Bearer`).
        var bearer: String?
        /// The request the app sends next, made from this one's final answer (nil: none).
        var then: (@Sendable (Answer) -> Request?)?

        init(method: String = "POST", path: String, key: String, contentType: String, body: [UInt8], client: (id: String, secret: String)? = nil,
             bearer: String? = nil, then: (@Sendable (Answer) -> Request?)? = nil) {
            self.method = method
            self.path = path
            self.key = key
            self.contentType = contentType
            self.body = body
            self.client = client
            self.bearer = bearer
            self.then = then
        }
    }

    /// One answer: its status (0: no answer, the connection failed) and body.
    struct Answer: Sendable, Equatable {
        var status: Int
        var body: String

        /// The JSON object of the body.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }

        /// Whether the app retries it: no final answer yet.
        var isPending: Bool {
            [0, 202, 503].contains(status) || (status == 429 && json["error"] as? String == "rate_limited")
        }
    }

    /// What the app got for its request.
    struct Outcome: Sendable {
        var request: Request
        /// Every answer, in order (the final one last, unless none came in time).
        var answers: [Answer] = []
        /// The answer to the retry after the final one.
        var repeated: Answer?

        /// The final answer, nil when every answer was pending.
        var final: Answer? { answers.last.flatMap { $0.isPending ? nil : $0 } }
    }

    var gateway: String
    private let handles = CurlHandlePool()
    /// The requests being sent, said while a run waits for them.
    let inFlight = InFlight()

    init(gateway: String) {
        self.gateway = gateway
    }

    /// When the apps stop retrying: far off while the faults go on, then the settle time after they end.
    final class Deadline: Sendable {
        private let instant = Mutex(ContinuousClock.now + .seconds(86_400))
        var current: ContinuousClock.Instant { instant.withLock { $0 } }
        func set(_ value: ContinuousClock.Instant) { instant.withLock { $0 = value } }
    }

    /// The requests in flight and what each got so far, said while a run waits for them.
    final class InFlight: Sendable {
        private let requests = Mutex<[String: (path: String, answers: Int, last: Int?)]>([:])

        fileprivate func begin(_ request: Request) { requests.withLock { $0[request.key] = (request.path, 0, nil) } }
        fileprivate func end(_ request: Request) { requests.withLock { _ = $0.removeValue(forKey: request.key) } }
        fileprivate func answered(_ request: Request, _ status: Int) {
            requests.withLock { requests in
                requests[request.key]?.answers += 1
                requests[request.key]?.last = status
            }
        }

        /// How many there are and the first few, each with its answers so far (status 0: no connection); nil when none.
        var summary: String? {
            let requests = requests.withLock { $0 }.sorted { $0.key < $1.key }
            guard !requests.isEmpty else { return nil }
            let shown = requests.prefix(5).map { key, request in
                "\(request.path) \(key) (" + (request.last.map { "\(request.answers) answers, the last \($0)" } ?? "no answer yet") + ")"
            }
            return "\(requests.count) app requests in flight: " + shown.joined(separator: "; ") + (requests.count > shown.count ? "; …" : "")
        }
    }

    /// Sends `request` until it has a final answer or `deadline` passes (or the task is cancelled), then retries it
    /// the same way once more (a retry meeting the gateway restarting waits for it, as an app would); then the request
    /// it leads to (`then`), the same way. Returns the outcome of each, in order.
    func send(_ request: Request, until deadline: Deadline) async -> [Outcome] {
        inFlight.begin(request)
        var outcome = Outcome(request: request)
        outcome.answers = await answers(to: request, until: deadline)
        if outcome.final != nil { outcome.repeated = await answers(to: request, until: deadline).last }
        inFlight.end(request)
        guard let final = outcome.final, let next = request.then?(final) else { return [outcome] }
        return await [outcome] + send(next, until: deadline)
    }

    /// The answers to `request`, sent once a second while they are pending, up to a final one or `deadline`.
    private func answers(to request: Request, until deadline: Deadline) async -> [Answer] {
        var answers: [Answer] = []
        while true {
            let answer = await post(request)
            answers.append(answer)
            inFlight.answered(request, answer.status)
            guard answer.isPending, !Task.isCancelled, ContinuousClock.now + .seconds(1) < deadline.current else { return answers }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func post(_ request: Request) async -> Answer {
        var options: [CurlOption] = [
            .url(gateway + request.path), .method(request.method), .body(request.body), .connectTimeout(.seconds(5)), .timeout(.seconds(120)),
            .headers(["Content-Type: \(request.contentType)", "Idempotency-Key: \(request.key)", "Expect:"]
                     + (request.bearer.map { ["Authorization: Bearer \($0)"] } ?? [])),
        ]
        if let client = request.client { options += [.username(client.id), .password(client.secret)] }
        let response = try? await offload { [handles, options] in
            try handles.withHandle { handle throws(CurlError) in try handle.perform(options) }
        }
        return response.map { Answer(status: $0.status, body: String(decoding: $0.body, as: UTF8.self)) } ?? Answer(status: 0, body: "")
    }
}
