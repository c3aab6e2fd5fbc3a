import Console
import Gateway
import Support

await CommandLineTool.exit(
    tool: "registrar", summary: "sign-up and sign-in through Kafka topics",
    subcommands: [
        .init("topics", "Create or check every topic and dead-letter topic on a Kafka cluster", run: TopicsCommand.run),
        .init("keys", "Create a key set (sealing, signing, code secret, JWKS, event keys); `keys distribute|rotate-signing|retire-signing|rotate-events|retire-events`",
              run: { arguments in
            guard let first = arguments.first, !first.hasPrefix("-") else { return await KeysCommand.run(arguments) }
            return await CommandLineTool.dispatch(tool: "registrar keys", summary: "key sets", arguments, to: [
                .init("rotate-signing", "Make a new access-token signing key; the old one still verifies", run: SigningKeysCommand.rotate),
                .init("distribute", "Copy each worker's and the gateway's keys into a directory of its own, to mount whole",
                      run: KeyDistributionCommand.run),
                .init("retire-signing", "Drop retired signing keys whose tokens have expired from the JWKS", run: SigningKeysCommand.retire),
                .init("rotate-events", "Make a new event signing key for a role; the old one is still accepted",
                      run: { await EventKeysCommand.run("rotate-events", $0) }),
                .init("retire-events", "Stop accepting a role's previous event signing key",
                      run: { await EventKeysCommand.run("retire-events", $0) }),
            ])
        }),
        .init("seal", "Print a secret sealed to the account worker's public key for one field of one request", run: SealCommand.run),
        .init("register", "Publish a registration and wait for its outcome", run: RegisterCommand.run),
        .init("status", "Show where a registration stands: its path through the topics", run: StatusCommand.run),
        .init("code", "One-time codes: `code request`", tool: "registrar code", toolSummary: "one-time codes", subcommands: [
            .init("request", "Send a one-time code to an email address", run: CodeRequestCommand.run),
        ]),
        .init("login", "Sign in with a password or an emailed code; prints the tokens", run: LoginCommand.run),
        .init("token", "Tokens: `token refresh`, `token revoke`", tool: "registrar token", toolSummary: "tokens", subcommands: [
            .init("refresh", "Rotate a refresh token into a new token pair", run: TokenRefreshCommand.run),
            .init("revoke", "Revoke a refresh or access token: its session ends (RFC 7009)", run: SessionCommands.revoke),
        ]),
        .init("sign-out", "End this session, another by --session, or every session (--everywhere)", run: SessionCommands.signOut),
        .init("sessions", "List the live sessions of the account an access token signs in", run: SessionCommands.list),
        .init("export", "Print everything Registrar stores about an account (a recent sign-in's access token)", run: ExportCommand.run),
        .init("delete-account", "Delete an account for good: avatar, profile and account (a recent sign-in's access token, and its password or a delete_account code)",
              run: DeleteAccountCommand.run),
        .init("update-profile", "Change the name, map location or avatar of an account's profile (an access token)", run: UpdateProfileCommand.run),
        .init("password", "Passwords: `password change`, `password reset`", tool: "registrar password", toolSummary: "passwords", subcommands: [
            .init("change", "Change a password, re-authenticating with the old one", run: PasswordCommand.change.run),
            .init("reset", "Set a new password with a reset_password code", run: PasswordCommand.reset.run),
        ]),
        .init("email", "Email address: `email change`", tool: "registrar email", toolSummary: "email address", subcommands: [
            .init("change", "Move an account to a new email address", run: EmailChangeCommand.run),
        ]),
        .init("operator", "An operator's account tools: `operator find|unlock|disable|enable|reset-password|delete --email E`",
              run: OperatorCommand.run),
        .init("gateway", "Serve the apps' HTTPS endpoints (codes, OAuth 2.0 tokens), publishing through the topics", run: GatewayCommand.run),
        .init("console", "Serve the operator console: workers' lag, sagas in flight, outcomes, dead letters, the audit", run: ConsoleCommand.run),
        .init("templates", "Mail templates: `templates check|export|preview`", run: TemplatesCommand.run),
        .init("audit", "Check every store for half-registered users", run: AuditCommand.run),
        .init("migrate", "Create or migrate the databases as their owner; grant each worker's role its tables", run: MigrateCommand.run),
        .init("dlq", "Inspect and replay dead-lettered messages", run: DeadLetterCommand.run),
    ])
