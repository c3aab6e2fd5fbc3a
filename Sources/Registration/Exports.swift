// The registration flow's API speaks in the contract's types (events, failures, store errors) and the account core's.
@_exported import Accounts
@_exported import Domain
