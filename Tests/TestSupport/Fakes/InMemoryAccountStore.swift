import AccountChanges
import Domain
import Foundation
import Registration
import SignIn
import Synchronization

/// Accounts, sagas, sign-in failures and account changes in memory, with the SQL stores' semantics:
/// unique uids and emails, compare-and-set saga saves, and an account change committed with its account update.
public final class InMemoryAccountStore: AccountChangeStore {
    private struct FailureKey: Hashable {
        var uid: String
        var kind: FailureKind
    }

    private struct State {
        var accounts: [String: Account] = [:]
        var sagas: [String: SagaRecord] = [:]
        var failures: [FailureKey: SignInFailures] = [:]
        var changes: [String: AccountChangeRecord] = [:]
        var effects: [OutboxMessage] = []
    }

    private let state = Mutex(State())
    /// Raised by every write.
    public let writes = Fault()
    /// Run at the next `begin` of an account change before it looks at anything: another writer (an operator) committing
    /// between the change's authentication and its start.
    public let beforeNextBegin = Mutex<(@Sendable (InMemoryAccountStore) -> Void)?>(nil)

    public init() {}

    public func start(_ saga: SagaRecord, account: Account) throws(StoreError) -> SagaStart {
        try writes.check()
        return state.withLock { state in
            if let existing = state.sagas[saga.registrationId] { return .existing(existing) }
            guard state.accounts[account.uid] == nil, !state.accounts.values.contains(where: { $0.email == account.email }) else {
                return .emailTaken
            }
            state.accounts[account.uid] = account
            state.sagas[saga.registrationId] = saga
            return .started
        }
    }

    public func recordFailed(_ saga: SagaRecord) throws(StoreError) -> SagaRecord {
        try writes.check()
        return state.withLock { state in
            if let existing = state.sagas[saga.registrationId] { return existing }
            state.sagas[saga.registrationId] = saga
            return saga
        }
    }

    public func forgetRefusals(recordedBefore date: Date) throws(StoreError) -> Int {
        try writes.check()
        return state.withLock { state in
            let forgotten = state.sagas.values.filter { $0.stage == .failed && $0.uid.isEmpty && $0.updatedAt < date }
            for saga in forgotten { state.sagas[saga.registrationId] = nil }
            return forgotten.count
        }
    }

    public func saga(_ registrationId: String) throws(StoreError) -> SagaRecord? {
        state.withLock { $0.sagas[registrationId] }
    }

    /// The side effects the saves kept, oldest first.
    public var effects: [OutboxMessage] { state.withLock { $0.effects } }

    public func save(_ saga: SagaRecord, applying change: AccountChange?, keeping effects: [OutboxMessage]) throws(StoreError) -> Bool {
        try writes.check()
        return try state.withLock { (state) throws(StoreError) -> Bool in
            guard state.sagas[saga.registrationId]?.version == saga.version - 1 else { return false }
            switch change {
            case .activate(let uid):
                guard state.accounts[uid] != nil else { throw StoreError(.permanent, "account \(uid) does not exist to be activated") }
                state.accounts[uid]?.status = .active
                state.accounts[uid]?.revision = saga.version
            case .delete(let uid):
                state.accounts[uid] = nil
            case nil:
                break
            }
            state.sagas[saga.registrationId] = saga
            state.effects += effects
            return true
        }
    }

    public func sagas(in stages: Set<SagaStage>, updatedBefore date: Date) throws(StoreError) -> [SagaRecord] {
        state.withLock { state in
            state.sagas.values.filter { stages.contains($0.stage) && $0.updatedAt < date }
                .sorted { ($0.updatedAt, $0.registrationId) < ($1.updatedAt, $1.registrationId) }
        }
    }

    public func update(uid: String, applying update: AccountUpdate) throws(StoreError) {
        try writes.check()
        try state.withLock { (state) throws(StoreError) in try Self.apply(update, to: uid, in: &state) }
    }

    public func account(uid: String) throws(StoreError) -> Account? {
        state.withLock { $0.accounts[uid] }
    }

    public func account(email: String) throws(StoreError) -> Account? {
        state.withLock { $0.accounts.values.first { $0.email == email } }
    }

    public func accounts() throws(StoreError) -> [Account] {
        state.withLock { $0.accounts.values.sorted { ($0.createdAt, $0.uid) < ($1.createdAt, $1.uid) } }
    }

    public func updateFailures<T: Sendable>(uid: String, of kind: FailureKind,
                                            _ body: (inout SignInFailures) -> T) throws(StoreError) -> T {
        try writes.check()
        return state.withLock { state in body(&state.failures[FailureKey(uid: uid, kind: kind), default: SignInFailures()]) }
    }

    public func replacePasswordHash(uid: String, from old: String, to new: String) throws(StoreError) -> Bool {
        try writes.check()
        return state.withLock { state in
            guard state.accounts[uid]?.passwordHash == old else { return false }
            state.accounts[uid]?.passwordHash = new
            return true
        }
    }

    public func change(requestId: String) throws(StoreError) -> AccountChangeRecord? {
        state.withLock { $0.changes[requestId] }
    }

    public func begin(_ record: AccountChangeRecord, applying update: AccountUpdate) throws(StoreError) -> AccountChangeStart {
        try writes.check()
        beforeNextBegin.withLock { hook in defer { hook = nil }; return hook }?(self)
        return try state.withLock { (state) throws(StoreError) -> AccountChangeStart in
            if let existing = state.changes[record.requestId] { return .existing(existing) }
            if let authenticated = update.authenticatedAgainst,
               state.accounts[record.uid].map({ ($0.status, $0.passwordHash) == (.active, authenticated) }) != true {
                return .credentialsChanged
            }
            if let email = update.email, state.accounts.values.contains(where: { $0.email == email && $0.uid != record.uid }) {
                return .emailTaken
            }
            try Self.apply(update, to: record.uid, in: &state)
            var stored = record
            if record.sendsCommand { stored.revision = Self.nextRevision(of: record.uid, in: &state) }
            state.changes[record.requestId] = stored
            return .started(stored)
        }
    }

    public func save(_ record: AccountChangeRecord, applying update: AccountUpdate?, keeping effects: [OutboxMessage]) throws(StoreError)
        -> AccountChangeRecord {
        try writes.check()
        return try state.withLock { (state) throws(StoreError) -> AccountChangeRecord in
            var stored = record
            if record.sendsCommand, state.changes[record.requestId]?.stage != record.stage {
                stored.revision = Self.nextRevision(of: record.uid, in: &state)
            }
            if let update { try Self.apply(update, to: record.uid, in: &state) }
            state.changes[record.requestId] = stored
            state.effects += effects
            return stored
        }
    }

    public func changes(in stage: AccountChangeStage, updatedBefore date: Date) throws(StoreError) -> [AccountChangeRecord] {
        state.withLock { state in
            state.changes.values.filter { $0.stage == stage && $0.updatedAt < date }
                .sorted { ($0.updatedAt, $0.requestId) < ($1.updatedAt, $1.requestId) }
        }
    }

    public func changes(uid: String) throws(StoreError) -> [AccountChangeRecord] {
        state.withLock { state in
            state.changes.values.filter { $0.uid == uid }.sorted { ($0.updatedAt, $0.requestId) < ($1.updatedAt, $1.requestId) }
        }
    }

    /// Adds the active account `uid` of `email` that a completed registration at `date` leaves (`verified`: with its
    /// mailbox proven, as every registration now does; not for an account made before registrations needed a code).
    public func addActiveAccount(uid: String, email: String, passwordHash: String, at date: Date, verified: Bool = true) {
        let saga = SagaRecord(registrationId: "reg-" + uid, uid: uid, email: email, name: "Ada", isMapLocationEnabled: false,
                              imageId: "image-" + uid, stage: .completed, startedAt: date, updatedAt: date)
        state.withLock { state in
            state.accounts[uid] = Account(uid: uid, email: email, passwordHash: passwordHash, status: .active,
                                          registrationId: saga.registrationId, createdAt: date, verifiedAt: verified ? date : nil,
                                          revision: saga.version)
            state.sagas[saga.registrationId] = saga
        }
    }

    /// Sets the status of the account `uid` (as an operator's disable or a deletion's start does).
    public func setStatus(_ status: AccountStatus, of uid: String) {
        state.withLock { $0.accounts[uid]?.status = status }
    }

    /// The sign-in failures recorded for `uid`.
    public func failures(uid: String, of kind: FailureKind = .password) -> SignInFailures {
        state.withLock { $0.failures[FailureKey(uid: uid, kind: kind)] ?? SignInFailures() }
    }

    private static func apply(_ update: AccountUpdate, to uid: String, in state: inout State) throws(StoreError) {
        guard var account = state.accounts[uid] else { throw StoreError(.permanent, "account \(uid) does not exist to be changed") }
        account.passwordHash = update.passwordHash ?? account.passwordHash
        account.email = update.email ?? account.email
        if let cutoff = update.endsSessionsAt { account.notBefore = account.sessionCutoff(changedAt: cutoff) }
        if account.verifiedAt == nil, let proof = update.provesMailboxAt {
            account.verifiedAt = proof
            account.verifiedBy = update.provenBy
        }
        state.accounts[uid] = account
    }

    private static func nextRevision(of uid: String, in state: inout State) -> Int {
        state.accounts[uid]?.revision += 1
        return state.accounts[uid]?.revision ?? 0
    }
}
