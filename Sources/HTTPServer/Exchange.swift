import Synchronization

/// One request on its connection, from its headers to its answer: the body received up to the
/// limit and within the server's body budget, charged as the bytes arrive (what it holds of the budget
/// given back when it ends), the handler running, the answer waiting to be queued.
final class Exchange: Sendable {
    /// What the connection's next turn without body bytes does.
    enum Step {
        case run(HTTPRequest)
        case respond(HTTPResponse)
        case wait
    }

    private enum Phase {
        /// `refusal`: the body is discarded and this is the answer (too large, or past the budget).
        case receiving(body: [UInt8], refusal: HTTPResponse?)
        case running
        case answered(HTTPResponse)
        case done
    }

    let head: HTTPRequest
    let limit: Int
    private let budget: BodyBudget
    private let phase = Mutex(Phase.receiving(body: [], refusal: nil))
    /// The bytes of the budget this request holds.
    private let held = Mutex(0)

    init(head: HTTPRequest, limit: Int, budget: BodyBudget) {
        self.head = head
        self.limit = limit
        self.budget = budget
    }

    deinit { budget.give(held.withLock { $0 }, for: head.clientAddress) }

    /// Takes `bytes` more of the budget, unless the body already holds that much; whether it fits.
    private func hold(upTo bytes: Int) -> Bool {
        held.withLock { held in
            guard bytes > held else { return true }
            guard budget.take(bytes - held, for: head.clientAddress) else { return false }
            held = bytes
            return true
        }
    }

    /// Appends body bytes, keeping none past the limit or the budget.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        phase.withLock { phase in
            guard case .receiving(var body, nil) = phase else { return }
            phase = .done
            if body.count + bytes.count > limit {
                phase = .receiving(body: [], refusal: .contentTooLarge)
            } else if !hold(upTo: body.count + bytes.count) {
                phase = .receiving(body: [], refusal: .overBudget)
            } else {
                body.append(contentsOf: bytes)
                phase = .receiving(body: body, refusal: nil)
            }
        }
    }

    /// The body is complete (or the answer came): what to do now.
    func next() -> Step {
        phase.withLock { phase in
            switch phase {
            case .receiving(_, let refusal?):
                phase = .done
                return .respond(refusal)
            case .receiving(let body, nil):
                phase = .running
                var request = head
                request.body = body
                return .run(request)
            case .answered(let response):
                phase = .done
                return .respond(response)
            case .running, .done:
                return .wait
            }
        }
    }

    /// Answered before the body was read (it was announced too large, or screened out).
    func reject() { phase.withLock { $0 = .done } }

    /// The handler's answer, for the resumed connection to queue.
    func answer(_ response: HTTPResponse) { phase.withLock { $0 = .answered(response) } }
}
