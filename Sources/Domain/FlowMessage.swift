/// What every event has: the id of the flow it belongs to (a registration, a code request, a token
/// request, an account change), which is also its message key.
public protocol FlowMessage: Codable, Sendable {
    var flowId: String { get }
}

/// An event of a flow started by a client request, keyed by the client-supplied request id.
public protocol RequestMessage: FlowMessage {
    var requestId: String { get }
}

extension RequestMessage {
    public var flowId: String { requestId }
}

extension RegistrationMessage {
    public var flowId: String { registrationId }
}
