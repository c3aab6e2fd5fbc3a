/// The status and body of a response.
public struct CurlResponse: Sendable {
    /// The server's reply code: an HTTP status, an SMTP reply.
    public var status: Int
    public var body: [UInt8]
    /// The length the response announced (`Content-Length`, also of a HEAD), or nil.
    public var contentLength: Int?

    public init(status: Int, body: [UInt8], contentLength: Int? = nil) {
        self.status = status
        self.body = body
        self.contentLength = contentLength
    }
}
