import Courier
import Support

/// The options of the workers that send mail: the sender, the product's name and support address the templates
/// show, and the operator's template directory, whose templates are checked when the worker starts.
public enum MailOptions {
    public static let specs: [CommandSpec.Option] = [
        .value("mail-from", "Sender of the emails", environment: "REGISTRAR_MAIL_FROM", default: MailSettings().from),
        .value("product-name", "The product's name as emails show it", environment: "REGISTRAR_PRODUCT_NAME", default: MailSettings().product),
        .value("support-address", "Where emails tell users to write for help", environment: "REGISTRAR_SUPPORT_ADDRESS",
               default: MailSettings().support),
        .value("mail-templates", "Directory of mail templates replacing or adding to the built-in ones (<locale>/<letter>/subject.txt, "
               + "body.txt, body.html; `registrar templates export` writes the built-in set)", environment: "REGISTRAR_MAIL_TEMPLATES"),
    ]

    /// Every letter a worker mails.
    public static var letters: [Letter] { TopicAccess.workers.flatMap { $0.letters } }

    /// The settings `parsed` configures, with templates that render every one of `letters` in every locale they have;
    /// else a failure listing every problem, one a line.
    public static func settings(_ parsed: ParsedArguments, letters: [Letter]) throws -> MailSettings {
        let templates: MailTemplates
        do {
            templates = try MailTemplates(overriding: parsed.value("mail-templates"))
            try templates.check(letters)
        } catch {
            throw CommandFailure("mail templates:\n  " + error.problems.joined(separator: "\n  "))
        }
        return MailSettings(from: try parsed.required("mail-from"), product: try parsed.required("product-name"),
                            support: try parsed.required("support-address"), templates: templates)
    }
}
