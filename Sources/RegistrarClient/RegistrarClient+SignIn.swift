import Accounts
import Crypto
import Domain
import Foundation

/// Sign-ins: the credential sealed, the tokens sealed back to the request's reply key.
extension RequestSealing {
    /// A token request for `grant`, its credential sealed. A `password` grant may carry a `login` code mailed to the
    /// address, which an account whose mailbox was never proven asks for (`email_unverified`). `clientId`: the OAuth
    /// client its session is listed with.
    public func tokenRequest(_ grant: GrantType, email: String?, credential: String, code: String? = nil, clientId: String? = nil,
                             requestId: String = UUID().uuidString.lowercased()) -> TokenRequested {
        TokenRequested(requestId: requestId, grantType: grant, email: email,
                       sealedCredential: seal(credential, for: grant.sealPurpose, requestId: requestId, email: email),
                       sealedCode: code.map { seal($0, for: .code, requestId: requestId, email: email) },
                       replyKey: replyKey(for: requestId), clientId: clientId)
    }

    /// The tokens an outcome of request `requestId` issued, opened; nil for any other outcome.
    public func tokens(in outcome: Event, answering requestId: String) throws -> TokenPair? {
        guard case .tokenIssued(let issued) = outcome else { return nil }
        return try replySecret.open(issued.sealedTokens, as: TokenPair.self, answering: requestId)
    }

    /// A request for the profile of the account `accessToken` names, the token sealed.
    public func profileRequest(accessToken: String, requestId: String = UUID().uuidString.lowercased()) -> BearerRequest {
        BearerRequest(requestId: requestId, sealedAccessToken: seal(accessToken, for: .accessToken, requestId: requestId, email: nil),
                      replyKey: replyKey(for: requestId))
    }

    /// The profile an outcome of request `requestId` answered, opened; nil for any other outcome.
    public func profile(in outcome: Event, answering requestId: String) throws -> ProfileView? {
        guard case .profileAnswered(let answered) = outcome else { return nil }
        return try replySecret.open(answered.sealedProfile, as: ProfileView.self, answering: requestId)
    }
}

/// Sign-ins through the topics.
extension RegistrarClient {
    /// Requests tokens (see `tokenRequest`); returns the outcome and, when issued, the opened tokens.
    public func requestTokens(_ grant: GrantType, email: String?, credential: String, code: String? = nil, clientId: String? = nil,
                              requestId: String = UUID().uuidString.lowercased(), timeout: Duration) async throws -> (Event, TokenPair?) {
        let outcome = try await send(.tokenRequested(tokenRequest(grant, email: email, credential: credential, code: code, clientId: clientId,
                                                                  requestId: requestId)), timeout: timeout)
        return (outcome, try tokens(in: outcome, answering: requestId))
    }

    /// Reads the profile of the account `accessToken` names; returns the outcome and, when answered, the opened profile.
    public func profile(accessToken: String, requestId: String = UUID().uuidString.lowercased(),
                        timeout: Duration) async throws -> (Event, ProfileView?) {
        let outcome = try await send(.profileRequested(profileRequest(accessToken: accessToken, requestId: requestId)), timeout: timeout)
        return (outcome, try profile(in: outcome, answering: requestId))
    }
}
