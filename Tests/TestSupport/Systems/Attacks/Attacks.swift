import Foundation

/// The attacks of issue 12, played as a client that can publish to and read the topics, on any
/// `TestSystem`: the in-process tier (`TrustTests`, `ForgedEventTests`, `ReplayedSealTests`,
/// `OutcomePrivacyTests`) and the real binaries on both stores (`AdversarialTests`) run the same bodies.
/// Each is refused or dead-lettered, the victim's account, profile and avatar are unchanged, and the
/// victim still signs in.
enum Attacks {
    /// The worker arguments the attacks that ask for several codes of one mailbox run with.
    static let noCodeCooldown = ["code-dispatch-worker": ["--code-cooldown", "0"]]

    /// `name` made unique to one run of an attack (e.g. `attacker-1f2e3d4c`), so that attacks sharing an
    /// installation keep to their own ids and mailboxes.
    static func unique(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8).lowercased())" }
}
