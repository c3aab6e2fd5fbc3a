/// A ``SagaLog`` made of a store's functions: what each saga's log differs in (how its records are read, saved with
/// their change and side effects, listed while waiting, and marked for the deadline's ``ProgressWatch``), named where its engine is made.
public struct StoreSagaLog<Record: Sendable, Change: Sendable>: SagaLog {
    private let read: @Sendable (String) throws(StoreError) -> Record?
    private let write: @Sendable (Record, Change?, [OutboxMessage]) throws(StoreError) -> Record?
    private let listWaiting: @Sendable () throws(StoreError) -> [Record]
    private let marking: @Sendable (Record) -> ProgressWatch.Mark

    /// The log whose ``record(_:)``, ``save(_:applying:keeping:)``, ``waiting()`` and ``mark(_:)`` are the functions given.
    public init(record: @escaping @Sendable (String) throws(StoreError) -> Record?,
                save: @escaping @Sendable (Record, Change?, [OutboxMessage]) throws(StoreError) -> Record?,
                waiting: @escaping @Sendable () throws(StoreError) -> [Record],
                mark: @escaping @Sendable (Record) -> ProgressWatch.Mark) {
        read = record
        write = save
        listWaiting = waiting
        marking = mark
    }

    public func record(_ key: String) throws(StoreError) -> Record? { try read(key) }
    public func save(_ record: Record, applying change: Change?, keeping effects: [OutboxMessage]) throws(StoreError) -> Record? {
        try write(record, change, effects)
    }
    public func waiting() throws(StoreError) -> [Record] { try listWaiting() }
    public func mark(_ record: Record) -> ProgressWatch.Mark { marking(record) }
}
