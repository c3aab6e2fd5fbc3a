// The flow's API speaks in the account core's types (accounts, their stores, sessions and codes).
@_exported import Accounts
