/// One HTTP request to the S3 service, to be signed with AWS Signature Version 4.
struct SignedRequest {
    enum Method: String {
        case get = "GET", put = "PUT", head = "HEAD", delete = "DELETE"
    }

    var method: Method
    var url: String
    /// Extra headers; `x-amz-*` ones are signed.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
}

/// The status and body of a response.
struct Response {
    var status: Int
    var body: [UInt8]
}
