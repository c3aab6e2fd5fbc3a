/// The names of the key files in a key directory (`<data>/keys`, or one `registrar keys` made).
public enum KeyFileName {
    /// The account worker's X25519 sealing key (its public half in `<name>.pub`).
    public static let sealing = "account-worker.seal"
    /// The account worker's Ed25519 access-token signing key (its public half in `<name>.pub`).
    public static let signing = "access-tokens.ed25519"
    /// The server secret keying code hashes, shared by the account and code dispatch workers.
    public static let codeSecret = "codes.hmac"
    /// The gateway's X25519 reply key pair, which every gateway replica shares so that any of them opens the
    /// answers sealed to another (`registrar gateway --reply-key-file`).
    public static let gatewayReply = "gateway-reply.seal"
    /// The JSON Web Key Set that verifies access tokens.
    public static let jwks = "jwks.json"
}
