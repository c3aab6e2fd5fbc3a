/// Rules for the registration id that keys a whole saga.
public enum RegistrationRequest {
    /// Ids are 1–128 characters of letters, digits, `-`, `_` and `.`, not starting with `.` (a UUID fits).
    public static func validateId(_ id: String) -> Failure? {
        isWellFormed(id) ? nil : Failure(.registrationIdInvalid, "The registration id must be 1–128 letters, digits, '-', '_' or '.'.")
    }

    /// Whether `id` is 1–128 letters, digits, `-`, `_` and `.`, not starting with `.` (ids name files
    /// and object keys, where such names are hidden or special): the rule for every id that keys a flow.
    public static func isWellFormed(_ id: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        return (1...ContractLimits.idCharacters).contains(id.count) && !id.hasPrefix(".") && id.allSatisfy { allowed.contains($0) }
    }
}
