import Crypto
import Domain
import Foundation
import SignIn

/// Sign-ins: the credential sealed, the tokens sealed back to the client's reply key.
extension RegistrarClient {
    /// Requests tokens; returns the outcome and, when issued, the opened tokens. A `password` grant may carry a
    /// `login` code mailed to the address, which an account whose mailbox was never proven asks for (`email_unverified`).
    /// `clientId`: the OAuth client its session is listed with.
    public func requestTokens(_ grant: GrantType, email: String?, credential: String, code: String? = nil, clientId: String? = nil,
                              requestId: String = UUID().uuidString.lowercased(), timeout: Duration) async throws -> (Event, TokenPair?) {
        let request = TokenRequested(requestId: requestId, grantType: grant, email: email,
                                     sealedCredential: seal(credential, for: grant.sealPurpose, requestId: requestId, email: email),
                                     sealedCode: code.map { seal($0, for: .code, requestId: requestId, email: email) },
                                     replyKey: replyKey(for: requestId), clientId: clientId)
        let outcome = try await send(.tokenRequested(request), timeout: timeout)
        guard case .tokenIssued(let issued) = outcome else { return (outcome, nil) }
        return (outcome, try replySecret.open(issued.sealedTokens, as: TokenPair.self, answering: requestId))
    }
}

extension RegistrarClient {
    /// Reads the profile of the account `accessToken` names; returns the outcome and, when answered, the opened profile.
    public func profile(accessToken: String, requestId: String = UUID().uuidString.lowercased(),
                        timeout: Duration) async throws -> (Event, ProfileView?) {
        let request = ProfileRequested(requestId: requestId,
                                       sealedAccessToken: seal(accessToken, for: .accessToken, requestId: requestId, email: nil),
                                       replyKey: replyKey(for: requestId))
        let outcome = try await send(.profileRequested(request), timeout: timeout)
        guard case .profileAnswered(let answered) = outcome else { return (outcome, nil) }
        return (outcome, try replySecret.open(answered.sealedProfile, as: ProfileView.self, answering: requestId))
    }
}
