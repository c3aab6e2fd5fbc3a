import Domain
import Foundation
import Support

/// Looks across every store for half-registered users: what a saga should never leave behind.
public struct RegistrationAudit: Sendable {
    /// One thing that should not exist.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            case accountWithoutProfile = "account_without_profile"
            case profileWithoutAccount = "profile_without_account"
            case imageWithoutProfile = "image_without_profile"
            case stalePendingAccount = "stale_pending_account"
            case staleStagedUpload = "stale_staged_upload"
            case emailMismatch = "email_mismatch"
            case staleDeletingAccount = "stale_deleting_account"
        }

        public var kind: Kind
        public var subject: String
        public var detail: String

        public var description: String { "\(kind.rawValue) \(subject): \(detail)" }
    }

    /// The findings, and the accounts by state: an operator sees the disabled ones (`registrar operator enable` brings
    /// each back) beside what should not exist.
    public struct Report: Sendable {
        public var findings: [Finding]
        /// How many accounts are in each state (a state none is in: absent).
        public var accountsByState: [AccountStatus: Int]
        /// The uids of the disabled accounts, sorted.
        public var disabled: [String]

        /// The census as a line: `accounts: 3 active, 1 disabled, 0 deleting, 0 pending`.
        public var census: String {
            "accounts: " + [AccountStatus.active, .disabled, .deleting, .pending].map { "\(accountsByState[$0] ?? 0) \($0.rawValue)" }
                .joined(separator: ", ")
        }
    }

    public var accounts: any AccountStore
    public var profiles: any ProfileStore
    public var images: any ObjectStore

    public init(accounts: any AccountStore, profiles: any ProfileStore, images: any ObjectStore) {
        self.accounts = accounts
        self.profiles = profiles
        self.images = images
    }

    /// The findings; things younger than `grace` (registrations still in flight) are not counted.
    public func run(now: Date = Date(), grace: Duration) throws -> [Finding] {
        try report(now: now, grace: grace).findings
    }

    /// The findings (as `run`) with the accounts by state.
    public func report(now: Date = Date(), grace: Duration) throws -> Report {
        let cutoff = now.addingTimeInterval(-grace.timeInterval)
        let allAccounts = try accounts.accounts()
        let profilesByUid = Dictionary(try profiles.profiles().map { ($0.uid, $0.profile) }, uniquingKeysWith: { a, _ in a })
        let accountUids = Set(allAccounts.map(\.uid))
        var findings: [Finding] = []

        for account in allAccounts {
            switch account.status {
            case .active, .disabled:
                if let profile = profilesByUid[account.uid] {
                    if RegistrationRules.normalizedEmail(profile.email) != account.email {
                        findings.append(Finding(kind: .emailMismatch, subject: account.uid,
                                                detail: "account and profile emails differ"))
                    }
                } else {
                    findings.append(Finding(kind: .accountWithoutProfile, subject: account.uid, detail: "\(account.status.rawValue) account has no profile"))
                }
            case .pending where account.createdAt < cutoff:
                findings.append(Finding(kind: .stalePendingAccount, subject: account.uid,
                                        detail: "pending since \(account.createdAt.formatted(.iso8601))"))
            case .pending:
                break
            case .deleting where (account.notBefore ?? account.createdAt) < cutoff:
                // A deletion ends the sessions as it starts: one begun before the grace is stuck (its sweep resends its step).
                findings.append(Finding(kind: .staleDeletingAccount, subject: account.uid,
                                        detail: "deleting since \((account.notBefore ?? account.createdAt).formatted(.iso8601))"))
            case .deleting:
                break
            }
        }
        for (uid, _) in profilesByUid where !accountUids.contains(uid) {
            findings.append(Finding(kind: .profileWithoutAccount, subject: uid, detail: "profile has no account"))
        }
        let referenced = Set(profilesByUid.values.map(\.profileImage))
        for object in try images.list(prefix: "ProfileImages/") where object.modifiedAt < cutoff {
            if !referenced.contains(images.url(for: object.key)) {
                findings.append(Finding(kind: .imageWithoutProfile, subject: object.key, detail: "no profile uses this image"))
            }
        }
        for object in try images.list(prefix: "staging/") where object.modifiedAt < cutoff {
            findings.append(Finding(kind: .staleStagedUpload, subject: object.key, detail: "staged upload never processed"))
        }
        return Report(findings: findings.sorted { ($0.kind.rawValue, $0.subject) < ($1.kind.rawValue, $1.subject) },
                      accountsByState: Dictionary(grouping: allAccounts, by: \.status).mapValues(\.count),
                      disabled: allAccounts.filter { $0.status == .disabled }.map(\.uid).sorted())
    }
}
