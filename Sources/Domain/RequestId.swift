/// The rule for the client-supplied id of a code, token or account-change request.
public enum RequestId {
    /// Nil when `id` is 1–128 letters, digits, `-`, `_` or `.`, not starting with `.` (a UUID fits); else the failure.
    public static func validate(_ id: String) -> Failure? {
        RegistrationRequest.isWellFormed(id)
            ? nil : Failure(.requestIdInvalid, "The request id must be 1–128 letters, digits, '-', '_' or '.'.")
    }
}
