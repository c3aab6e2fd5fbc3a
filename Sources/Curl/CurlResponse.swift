/// The status and body of a response.
public struct CurlResponse: Sendable {
    /// The server's reply code: an HTTP status, an SMTP reply.
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}
