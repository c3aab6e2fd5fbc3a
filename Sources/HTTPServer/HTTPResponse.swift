/// An answer: status, header fields and body (`Content-Length` is the server's).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]), body: Array(text.utf8))
    }

    /// The answer to a body past its route's limit.
    static let contentTooLarge = text(413, "request body too large\n")

    /// The answer to a body that does not fit beside the bodies held now (`bodyBudget`): retry shortly.
    static let overBudget = HTTPResponse(status: 503, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "1")]),
                                         body: Array("too many uploads at once; retry shortly\n".utf8))
}
