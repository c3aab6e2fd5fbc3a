import Domain
import Foundation
import Installation
import RegistrarClient

/// The codes the dev tools' own registrations need (a registration carries the `register` code mailed to its address),
/// requested through the client and read from the mail the installation sent: the embedded outbox, or the directory
/// where a test mail server keeps what it accepted.
struct MailedCodes {
    /// One file per email sent.
    var directory: String

    /// A code mailed, and the request that had it mailed.
    struct Mailed: Sendable {
        var code: String
        var requestId: String
    }

    /// The codes of `purpose` mailed to each of `emails` (normalised; one request per address), requested at most
    /// `inFlight` at a time and read from the mail within `timeout`.
    func codes(for emails: [String], _ purpose: CodePurpose, with client: RegistrarClient, inFlight: Int = 32,
               timeout: Duration = .seconds(120)) async throws -> [String: String] {
        try await mail(to: emails, purpose, with: client, inFlight: inFlight, timeout: timeout).mapValues(\.code)
    }

    /// The codes of `purpose` mailed to each of `emails`, with the requests that had them mailed.
    func mail(to emails: [String], _ purpose: CodePurpose, with client: RegistrarClient, inFlight: Int = 32,
              timeout: Duration = .seconds(120)) async throws -> [String: Mailed] {
        let addresses = Array(Set(emails.map(RegistrationRules.normalizedEmail))).sorted()
        var requests: [String: String] = [:]
        for batch in stride(from: 0, to: addresses.count, by: inFlight).map({ Array(addresses[$0..<min($0 + inFlight, addresses.count)]) }) {
            try await withThrowingTaskGroup(of: (String, String).self) { group in
                for email in batch {
                    group.addTask {
                        let id = UUID().uuidString.lowercased()
                        let outcome = try await client.send(.codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose)), timeout: timeout)
                        guard case .codeSent = outcome else { throw InstallationError("no \(purpose.rawValue) code sent to \(email): \(outcome.type)") }
                        return (email, id)
                    }
                }
                for try await (email, id) in group { requests[email] = id }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let mailed = SentMail(directory: directory).codes
            let codes = requests.compactMapValues { id in mailed[id]?.first(where: { !$0.isEmpty }).map { Mailed(code: $0, requestId: id) } }
            if codes.count == requests.count { return codes }
            guard ContinuousClock.now < deadline else {
                throw InstallationError("\(requests.count - codes.count) codes were not mailed to \(directory) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The code of `purpose` mailed to `email`.
    func code(for email: String, _ purpose: CodePurpose, with client: RegistrarClient) async throws -> String {
        try await codes(for: [email], purpose, with: client)[RegistrationRules.normalizedEmail(email)]!
    }
}
