/// Rules for the registration id that keys a whole saga.
public enum RegistrationRequest {
    /// Ids are 1–128 characters of letters, digits, `-`, `_` and `.` (a UUID fits).
    public static func validateId(_ id: String) -> Failure? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard (1...128).contains(id.count), id.allSatisfy({ allowed.contains($0) }) else {
            return Failure(.registrationIdInvalid, "The registration id must be 1–128 letters, digits, '-', '_' or '.'.")
        }
        return nil
    }
}
