import Domain
import Foundation

/// Sessions and export: sign-out, revocation, the list of live sessions and the account's data, each token sealed for the
/// request that carries it.
extension RegistrarClient {
    /// Ends the sessions `scope` names with `token` (an access token; for a revocation, a refresh or an access token);
    /// returns the outcome, `SignedOut` or `TokenRefused`.
    public func signOut(_ scope: SignOutScope, token: String, sessionId: String? = nil, locale: String? = nil,
                        requestId: String = UUID().uuidString.lowercased(), timeout: Duration) async throws -> Event {
        try await send(.signOutRequested(signOut(scope, token: token, sessionId: sessionId, locale: locale, requestId: requestId)),
                       timeout: timeout)
    }

    /// The request ``signOut(_:token:sessionId:locale:requestId:timeout:)`` publishes.
    public func signOut(_ scope: SignOutScope, token: String, sessionId: String? = nil, locale: String? = nil,
                        requestId: String = UUID().uuidString.lowercased()) -> SignOutRequested {
        SignOutRequested(requestId: requestId, scope: scope,
                         sealedToken: publicKey.sealedBase64(token, for: scope.sealPurpose, in: SealContext(
                             requestId: requestId, email: nil, replyKey: replyKey(for: requestId), sessionId: sessionId)),
                         sessionId: sessionId, replyKey: replyKey(for: requestId), locale: locale)
    }

    /// Lists the live sessions of the account `accessToken` names; returns the outcome and, when answered, the opened list.
    public func sessions(accessToken: String, requestId: String = UUID().uuidString.lowercased(),
                         timeout: Duration) async throws -> (Event, SessionList?) {
        let request = BearerRequest(requestId: requestId,
                                    sealedAccessToken: seal(accessToken, for: .accessToken, requestId: requestId, email: nil),
                                    replyKey: replyKey(for: requestId))
        let outcome = try await send(.sessionsRequested(request), timeout: timeout)
        guard case .sessionsAnswered(let answered) = outcome else { return (outcome, nil) }
        return (outcome, try replySecret.open(answered.sealedSessions, as: SessionList.self, answering: requestId))
    }
}

extension RegistrarClient {
    /// A copy of everything Registrar stores about the account `accessToken` names (its session signed in recently);
    /// returns the outcome and, when answered, the opened export.
    public func export(accessToken: String, requestId: String = UUID().uuidString.lowercased(),
                       timeout: Duration) async throws -> (Event, AccountExport?) {
        let request = BearerRequest(requestId: requestId, sealedAccessToken: seal(accessToken, for: .export, requestId: requestId, email: nil),
                                    replyKey: replyKey(for: requestId))
        let outcome = try await send(.exportRequested(request), timeout: timeout)
        guard case .exportAnswered(let answered) = outcome else { return (outcome, nil) }
        return (outcome, try replySecret.open(answered.sealedExport, as: AccountExport.self, answering: requestId))
    }
}

/// What re-authenticates an account's deletion: the account's password, or a `delete_account` code mailed to its address.
public enum DeletionProof: Sendable, Equatable {
    case password(String)
    case code(String)
}

extension RegistrarClient {
    /// Deletes for good the account `accessToken` names (its session signed in recently), re-authenticated by `proof`: its
    /// avatar, its profile and the account; returns the outcome, `AccountDeleted` or `AccountChangeFailed`. A notice is
    /// mailed in `locale`.
    public func deleteAccount(accessToken: String, proof: DeletionProof, locale: String? = nil,
                              requestId: String = UUID().uuidString.lowercased(), timeout: Duration) async throws -> Event {
        try await send(.accountDeletionRequested(deletion(accessToken: accessToken, proof: proof, locale: locale, requestId: requestId)),
                       timeout: timeout)
    }
}

extension RequestSealing {
    /// The request ``RegistrarClient/deleteAccount(accessToken:proof:locale:requestId:timeout:)`` publishes.
    public func deletion(accessToken: String, proof: DeletionProof, locale: String? = nil,
                         requestId: String = UUID().uuidString.lowercased()) -> AccountDeletionRequested {
        var request = AccountDeletionRequested(requestId: requestId,
                                               sealedAccessToken: seal(accessToken, for: .deleteAccount, requestId: requestId, email: nil),
                                               replyKey: replyKey(for: requestId), locale: locale)
        switch proof {
        case .password(let password): request.sealedPassword = seal(password, for: .reauthentication, requestId: requestId, email: nil)
        case .code(let code): request.sealedCode = seal(code, for: .code, requestId: requestId, email: nil)
        }
        return request
    }
}
