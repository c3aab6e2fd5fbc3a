/// An event of a type its receiver does not take, e.g. an answer a client did not expect.
public struct UnexpectedEvent: Error, Sendable, CustomStringConvertible {
    public var type: String
    public var worker: String

    public init(type: String, worker: String) {
        self.type = type
        self.worker = worker
    }

    public var description: String { "\(worker) does not take \(type) events" }
}
