import Domain
import SMTPCourier
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SMTPConfigurationTests {
    @Test func readsEverythingFromTheURL() throws {
        let configuration = try SMTPConfiguration(
            url: "smtp://mailer:p%40ss@mail.example.com:2525?tls=none&from=bounces@example.com&ca-file=/etc/ca.pem&connect-timeout=3&timeout=20")
        #expect(configuration.host == "mail.example.com")
        #expect(configuration.port == 2525)
        #expect(configuration.security == .none)
        #expect(configuration.username == "mailer")
        #expect(configuration.password == "p@ss")
        #expect(configuration.envelopeSender == "bounces@example.com")
        #expect(configuration.certificateAuthorities == "/etc/ca.pem")
        #expect(configuration.connectTimeout == .seconds(3))
        #expect(configuration.timeout == .seconds(20))
    }

    @Test func defaultsToSTARTTLSOrImplicitTLSBySchemeWithTheirPorts() throws {
        let submission = try SMTPConfiguration(url: "smtp://mail.example.com")
        #expect(submission.security == .startTLS)
        #expect(submission.port == 587)
        let implicit = try SMTPConfiguration(url: "smtps://mail.example.com")
        #expect(implicit.security == .implicitTLS)
        #expect(implicit.port == 465)
    }

    @Test func neverShowsThePassword() throws {
        let configuration = try SMTPConfiguration(url: "smtps://mailer:secret@mail.example.com")
        #expect(!configuration.description.contains("secret"))
        #expect(configuration.description.contains("mailer"))
        let failure = try #require(throws: StoreError.self) { try SMTPConfiguration(url: "smtp://mailer:secret@mail.example.com?tls=maybe") }
        #expect(!failure.message.contains("secret"))
    }

    @Test(arguments: ["http://mail.example.com", "smtp://mail.example.com?port=25", "smtps://mail.example.com?tls=none",
                      "smtp://mail.example.com?timeout=0"])
    func refusesWhatCannotWork(_ url: String) {
        #expect(throws: StoreError.self) { try SMTPConfiguration(url: url) }
    }
}
