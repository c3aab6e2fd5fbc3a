import Synchronization

/// One request on its connection, from its headers to its answer: the body received up to the
/// limit, the handler running, the answer waiting to be queued.
final class Exchange: Sendable {
    /// What the connection's next turn without body bytes does.
    enum Step {
        case run(HTTPRequest)
        case respond(HTTPResponse)
        case wait
    }

    private enum Phase {
        case receiving(body: [UInt8], tooLarge: Bool)
        case running
        case answered(HTTPResponse)
        case done
    }

    let head: HTTPRequest
    let limit: Int
    private let phase = Mutex(Phase.receiving(body: [], tooLarge: false))

    init(head: HTTPRequest, limit: Int) {
        self.head = head
        self.limit = limit
    }

    /// Appends body bytes, keeping none past the limit.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        phase.withLock { phase in
            guard case .receiving(var body, false) = phase else { return }
            phase = .done
            if body.count + bytes.count > limit {
                phase = .receiving(body: [], tooLarge: true)
            } else {
                body.append(contentsOf: bytes)
                phase = .receiving(body: body, tooLarge: false)
            }
        }
    }

    /// The body is complete (or the answer came): what to do now.
    func next() -> Step {
        phase.withLock { phase in
            switch phase {
            case .receiving(_, true):
                phase = .done
                return .respond(.contentTooLarge)
            case .receiving(let body, false):
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

    /// Answered before the body was read (it was announced too large).
    func reject() { phase.withLock { $0 = .done } }

    /// The handler's answer, for the resumed connection to queue.
    func answer(_ response: HTTPResponse) { phase.withLock { $0 = .answered(response) } }
}
