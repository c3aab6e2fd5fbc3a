@testable import Gateway
import HTTPServer
@testable import TestSupport
import Testing

/// Strict body parsing: media types, form encoding, flat JSON, multipart, HTTP Basic credentials.
@Suite(.tags(.unit)) struct RequestBodyTests {
    static func request(_ type: String?, _ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/x", headers: HTTPHeaders(type.map { [("Content-Type", $0)] } ?? []), body: Array(body.utf8))
    }

    @Test func formFieldsAreDecodedAndARepeatedOneIsRefused() throws {
        let body = try RequestBody.parse(Self.request("application/x-www-form-urlencoded; charset=UTF-8", "a=1+2&b=%C3%A9&c="),
                                         accepting: [RequestBody.form])
        #expect(try body.value("a") == "1 2" && body.value("b") == "é" && body.value("c") == "" && body.value("d") == nil)
        let twice = try RequestBody.parseForm("a=1&a=2")
        #expect(throws: RequestBody.Refusal.malformed("a is given more than once")) { try twice.value("a") }
        #expect(throws: RequestBody.Refusal.self) { try RequestBody.parseForm("a=%ZZ") }
    }

    @Test func onlyTheAcceptedMediaTypesInUTF8AreTaken() {
        let refused = RequestBody.Refusal.unsupportedMediaType(accepted: [RequestBody.form])
        #expect(throws: refused) { try RequestBody.parse(Self.request(nil, "a=1"), accepting: [RequestBody.form]) }
        #expect(throws: refused) { try RequestBody.parse(Self.request("application/json", "{}"), accepting: [RequestBody.form]) }
        #expect(throws: refused) { try RequestBody.parse(Self.request("application/x-www-form-urlencoded; charset=latin1", "a=1"), accepting: [RequestBody.form]) }
        #expect(throws: refused) { try RequestBody.parse(Self.request("text", "a=1"), accepting: [RequestBody.form]) }
    }

    @Test func jsonMustBeAFlatObjectOfStringsAndNumbers() throws {
        let body = try RequestBody.parse(Self.request("application/json", #"{"emailAddress":"a@b.c","type":2}"#), accepting: [RequestBody.json])
        #expect(try body.value("emailAddress") == "a@b.c" && body.value("type") == "2")
        #expect(throws: RequestBody.Refusal.self) { try RequestBody.parseJSON(#"{"a":{"b":1}}"#) }
        #expect(throws: RequestBody.Refusal.self) { try RequestBody.parseJSON("[1]") }
        #expect(throws: RequestBody.Refusal.self) { try RequestBody.parseJSON("{") }
    }

    @Test func multipartPartsAreSplitOnTheBoundary() throws {
        let text = "--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\u{1}\u{2}\r\n--XyZ--\r\n"
        let body = try MultipartBody.parse(Array(text.utf8), boundary: "XyZ")
        #expect(try body.text("name") == "Ada")
        #expect(try body.part("avatar")?.bytes == [1, 2] && body.part("avatar")?.filename == "a.jpg")
        #expect(throws: RequestBody.Refusal.self) { try MultipartBody.parse(Array("--XyZ\r\nno end".utf8), boundary: "XyZ") }
        #expect(throws: RequestBody.Refusal.self) { try MultipartBody.parse(Array(text.utf8), boundary: "") }
    }

    @Test func basicCredentialsAreFormDecoded() {
        #expect(Gateway.basicCredentials("Basic " + "erban-client:s%3Acret".data(using: .utf8)!.base64EncodedString()) ?? ("", "") == ("erban-client", "s:cret"))
        #expect(Gateway.basicCredentials("Bearer abc") == nil)
        #expect(Gateway.basicCredentials("Basic !!!") == nil)
    }

    @Test func theAppsCodeTypesAndPurposeNamesAreUnderstood() {
        #expect(Gateway.purpose("1") == .register && Gateway.purpose("2") == .login && Gateway.purpose("3") == .resetPassword)
        #expect(Gateway.purpose("change_email") == .changeEmail && Gateway.purpose("4") == nil && Gateway.purpose(nil) == nil)
    }

    @Test func clientSecretsMustMatchAConfiguredClient() {
        let clients = OAuthClients([.init(id: "erban-client", secret: "s")])
        #expect(clients.authenticates(id: "erban-client", secret: "s"))
        #expect(!clients.authenticates(id: "erban-client", secret: "t") && !clients.authenticates(id: "other", secret: "s"))
    }
}
