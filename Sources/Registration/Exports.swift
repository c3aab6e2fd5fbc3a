// The registration flow's API speaks in the contract's types (events, failures, store errors).
@_exported import Domain
