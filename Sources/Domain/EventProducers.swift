extension Route {
    /// The worker roles whose signed events this route takes: a message for it must carry a valid
    /// signature by a key of one of them, else it is dead-lettered `unauthenticated`. Empty for a
    /// client's request on a public request topic, which needs no signature.
    public var producers: Set<WorkerRole> { type.producers }
}

extension RoutingTable {
    /// The roles whose public event keys a worker with this table needs: the producers of its routes.
    public var producers: Set<WorkerRole> { Set(routes.flatMap(\.producers)) }
}
