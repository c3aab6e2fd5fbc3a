import Support

/// Where an installation keeps its accounts, profiles and images: each store is given by a URL whose
/// scheme picks the implementation, and defaults to the embedded one in the data directory. The stores are opened
/// by the modules that implement them, so that a process links only the libraries of the stores it opens:
/// `SQLStores` the accounts and profiles (SQLite, libpq), `S3Store` the images (S3 or files), `SMTPCourier` the
/// mail (SMTP or the file outbox).
///
/// - Accounts and profiles: `postgres://user:password@host:5432/name` (any libpq connection URI;
///   `postgresql://` too; another host defaults to `sslmode=verify-full`, a weaker mode must be set,
///   e.g. `?sslmode=require`) or `sqlite://path` (`sqlite:///absolute/path`).
/// - Images: `s3://bucket?region=…&endpoint=…&path-style=true&public-url=…` (see `S3Configuration`)
///   or `file://directory`.
/// - Mail: `smtp://user:password@host:587?tls=starttls|none&from=…` or `smtps://…` (see `SMTPConfiguration`);
///   by default the file outbox `<data-dir>/outbox`.
public struct BackendOptions: Sendable {
    public var accounts: String?
    public var profiles: String?
    public var images: String?
    public var mail: String?
    /// Where the embedded defaults live.
    public var dataDirectory: String

    /// The options' specs, to add to a command's own.
    public static let specs: [CommandSpec.Option] = [
        .value("accounts", "Account store: postgres://… or sqlite://path (default: <data-dir>/accounts.sqlite)",
               environment: "REGISTRAR_ACCOUNTS"),
        .value("profiles", "Profile store: postgres://… or sqlite://path (default: <data-dir>/profiles.sqlite)",
               environment: "REGISTRAR_PROFILES"),
        .value("images", "Image store: s3://bucket?region=…&endpoint=…&path-style=true or file://dir (default: <data-dir>/objects)",
               environment: "REGISTRAR_IMAGES"),
        .value("mail", "Mail server: smtp://user:pass@host:587?tls=starttls|none or smtps://… (default: files in <data-dir>/outbox)",
               environment: "REGISTRAR_MAIL"),
    ]

    public init(_ arguments: ParsedArguments, dataDirectory: String) {
        self.init(accounts: arguments.value("accounts"), profiles: arguments.value("profiles"),
                  images: arguments.value("images"), mail: arguments.value("mail"), dataDirectory: dataDirectory)
    }

    public init(accounts: String? = nil, profiles: String? = nil, images: String? = nil, mail: String? = nil,
                dataDirectory: String) {
        self.accounts = accounts
        self.profiles = profiles
        self.images = images
        self.mail = mail
        self.dataDirectory = dataDirectory
    }

    /// Whether any store is a production one (PostgreSQL, S3, SMTP) rather than embedded (SQLite, files):
    /// then workers take their keys from the operator and never create them.
    public var isProduction: Bool {
        let schemes = [accounts, profiles, images, mail].compactMap { $0?.split(separator: "://").first?.lowercased() }
        return schemes.contains { ["postgres", "postgresql", "s3", "smtp", "smtps"].contains($0) }
    }

    /// The URLs given, as the `REGISTRAR_*` environment variables a worker reads them from.
    public var environment: [String: String] {
        let urls = ["REGISTRAR_ACCOUNTS": accounts, "REGISTRAR_PROFILES": profiles, "REGISTRAR_IMAGES": images, "REGISTRAR_MAIL": mail]
        return urls.compactMapValues { $0 }
    }

    /// The account store's option alone, for workers that need only the stores following it.
    public static let accountsSpecs = specs.filter { $0.name == "accounts" }
    /// The mail option alone, for workers that send email.
    public static let mailSpecs = specs.filter { $0.name == "mail" }
    /// The image store's option alone (the image worker's: it holds no other store's credentials).
    public static let imagesSpecs = specs.filter { $0.name == "images" }
    /// The profile store's option alone (the profile worker's).
    public static let profilesSpecs = specs.filter { $0.name == "profiles" }
}
