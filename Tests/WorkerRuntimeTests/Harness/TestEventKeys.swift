import Crypto
import Domain
import EventTransport
@testable import TestSupport

/// Event keys of the bench: the worker signs as the account role; `profile` signs what a test
/// publishes as the profile worker would; the worker trusts both.
enum TestEventKeys {
    static let account = EventSigner(role: .account, key: .generate())
    static let profile = EventSigner(role: .profile, key: .generate())
    static let verifier = EventVerifier(trusting: [.account: [account.publicKey], .profile: [profile.publicKey]])
}
