/// One request as the server received it: the body is complete and within the route's limit.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, as sent (percent-escapes are kept).
    public var path: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's numeric IP address.
    public var clientAddress: String

    public init(method: String, path: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], clientAddress: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }
}

/// Header fields in the order they came; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// The first value of `name`, nil when absent.
    public subscript(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}
