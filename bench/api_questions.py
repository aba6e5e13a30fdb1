"""The questions of the held-out API set (bench/api_set.py): (question, document, first words of
the evidence, last words), written from the files by people who had not seen zoomrag's rules for
these formats."""

QUESTIONS_OPENAPI = (
    # ---------------- Hetzner Cloud ----------------
    ("How can I get a VNC console to my Hetzner Cloud server through the API, and how long is the console link valid?", "specs/hetzner-cloud.yaml", "Requests credentials for remote access via VNC over websocket", "is not subject to this timeout."),
    ("My Hetzner server won't boot; how do I start it into a minimal Linux system so I can repair its disks?", "specs/hetzner-cloud.yaml", "Enable the Hetzner Rescue System for this Server.", "you will have to do this yourself."),
    ("How do I turn on automatic daily backups for a Hetzner Cloud server, and how much extra does it cost?", "specs/hetzner-cloud.yaml", "Enables and configures the automatic daily backup option for the Server.", "Backups are automatically created daily."),
    ("How do I make a Hetzner Cloud volume bigger, and can I shrink it again later?", "specs/hetzner-cloud.yaml", "Changes the size of a Volume.", "downsizing a Volume is not possible."),
    ("When I move a Hetzner server to a bigger server type, what happens if I choose not to upgrade the disk?", "specs/hetzner-cloud.yaml", "If false, do not upgrade the disk", "allows downgrading the Server type later)"),
    ("In a Hetzner firewall rule, how do I allow traffic from any IPv4 or IPv6 address, and how many source CIDRs can one rule hold?", "specs/hetzner-cloud.yaml", "List of permitted IPv4/IPv6 addresses in CIDR notation.", "You can specify 100 CIDRs at most."),
    ("Is there a size limit for the cloud-init user data I pass when creating a Hetzner server?", "specs/hetzner-cloud.yaml", "Cloud-Init user data to use during Server creation.", "This field is limited to 32KiB."),
    ("How many requests per hour can I make to the Hetzner Cloud API before I get 429 errors?", "specs/hetzner-cloud.yaml", "The default limit is 3600 requests per hour and per Project.", "will increase by 1 every second."),
    ("How many items does a Hetzner Cloud list endpoint return per page by default, and what is the largest page size I can ask for?", "specs/hetzner-cloud.yaml", "parameter specifies the number of items returned per page.", "value is 50 except otherwise specified in the documentation."),
    # ---------------- Slack ----------------
    ("How do I post a Slack message in a channel that only one specific user can see?", "specs/slack.yaml", "Sends an ephemeral message to a user in a channel.", "to a user in a channel."),
    ("How can I get a shareable link to a particular Slack message from my app?", "specs/slack.yaml", "Retrieve a permalink URL for a specific extant message", "for a specific extant message"),
    ("How does my Slack bot start a direct message conversation with a user (or a group DM)?", "specs/slack.yaml", "Opens or resumes a direct message or multi-person direct message.", "or multi-person direct message."),
    ("How can I mute Slack notifications for the current user for a while through the API?", "specs/slack.yaml", "Turns on Do Not Disturb mode for the current user", "or changes its duration."),
    ("How do I fetch all the replies in a Slack message thread?", "specs/slack.yaml", "Retrieve a thread of messages posted to a conversation", "messages posted to a conversation"),
    ("When posting a Slack message as a thread reply, which timestamp should I pass: the parent message's or another reply's?", "specs/slack.yaml", "value to make this message a reply.", "use its parent instead."),
    ("When scheduling a Slack message for later, in what format do I give the send time?", "specs/slack.yaml", "Unix EPOCH timestamp of time in future to send the message.", "in future to send the message."),
    ("How do I get the next page of results from a Slack list method like the channel history?", "specs/slack.yaml", "Paginate through collections of data by setting the", "Default value fetches the first"),
    ("Which OAuth scope does my Slack app need to look up a user by email address?", "specs/slack.yaml", "Authentication token. Requires scope: `users:read.email`", "Requires scope: `users:read.email`"),
    # ---------------- Vercel ----------------
    ("How do I stop a Vercel deployment that is still building?", "specs/vercel.yaml", "This endpoint allows you to cancel a deployment which is currently building", "by supplying its `id` in the URL."),
    ("How can I get the build logs of a Vercel deployment, and can I stream them live?", "specs/vercel.yaml", "Get the build logs of a deployment by deployment ID and build ID.", "a JSON endpoint depending on the input parameters."),
    ("How do I check whether a domain name is still free to buy through Vercel?", "specs/vercel.yaml", "Check if a domain name is available for purchase.", "is available for purchase."),
    ("How do I send my project files to Vercel before creating a deployment from them?", "specs/vercel.yaml", "Before you create a deployment you need to upload the required files", "status code 200 with an empty body."),
    ("Which deployment states can I filter by when listing my Vercel deployments?", "specs/vercel.yaml", "Filter deployments based on their state", "`QUEUED`, `READY`, `CANCELED`)"),
    ("What TTL values are allowed for a DNS record on a Vercel domain, and what is the default?", "specs/vercel.yaml", "The TTL value. Must be a number between 60 and 2147483647.", "Default value is 60."),
    ("How do I make a Vercel API call for my team instead of my personal account?", "specs/vercel.yaml", "The Team identifier or slug to perform the request on behalf of.", "perform the request on behalf of."),
    ("After creating a Vercel auth token through the API, can I retrieve the token value again later?", "specs/vercel.yaml", "The `bearerToken` property is only provided once, in the response body,", "for use with API requests."),
    ("Is there a limit on how many people can have pending requests to join a Vercel team?", "specs/vercel.yaml", "Request access to a team as a member. An owner has to approve the request.", "request access to a team at the same time."),
    # ---------------- Gitea ----------------
    ("How do I set or clear a due date on a Gitea issue, and does the time of day count?", "specs/gitea.json", "Set an issue deadline. If set to null, the deadline is deleted.", "and time of day ignored."),
    ("How do I mark that one Gitea issue depends on another issue?", "specs/gitea.json", "Make the issue in the url depend on the issue in the form.", "depend on the issue in the form."),
    ("How can I update a Gitea pull request branch with the latest changes from its base branch?", "specs/gitea.json", "Merge PR's baseBranch into headBranch", "PR's baseBranch into headBranch"),
    ("I scheduled a Gitea pull request to merge automatically once checks pass; how do I call that off?", "specs/gitea.json", "Cancel the scheduled auto merge for the given pull request", "for the given pull request"),
    ("How do I import a repository from another git server into Gitea through the API?", "specs/gitea.json", "Migrate a remote git repository", "a remote git repository"),
    ("How do I change how often a Gitea pull mirror syncs, and in what format do I give the interval?", "specs/gitea.json", "set to a string like `8h30m0s`", "to set the mirror interval time"),
    ("What visibility values can I use when creating a Gitea organization, and which one is the default?", "specs/gitea.json", "possible values are `public` (default), `limited` or `private`", "(default), `limited` or `private`"),
    ("If I remove a repository from a Gitea team, is the repository itself deleted?", "specs/gitea.json", "This does not delete the repository, it only removes", "removes the repository from the team."),
    ("As a Gitea admin, how can I make an API request acting as another user, and who is allowed to do that?", "specs/gitea.json", "Sudo API request as the user provided as the key.", "Admin privileges are required."),
    # ---------------- ShipEngine ----------------
    ("I bought a ShipEngine shipping label I no longer need; how do I get my money back?", "specs/shipengine.json", "Void a label by ID to get a refund.", "by ID to get a refund."),
    ("How can ShipEngine notify me through webhooks whenever a package's shipping status changes?", "specs/shipengine.json", "Allows you to subscribe to tracking updates for a package.", "whenever the shipping status changes."),
    ("How do I pull a structured address (name, street lines, city, postal code) out of free text like an email using ShipEngine?", "specs/shipengine.json", "The address-recognition API makes it easy for you to extract address data", "city, postal code, and more."),
    ("After comparing ShipEngine rates, how do I buy a label for the rate I picked without sending the shipment details again?", "specs/shipengine.json", "Purchase a label using a `rate_id` that has been previously generated", "rates for a particular shipment."),
    ("Can I print ShipEngine labels on letter-size paper, or only as 4x6?", "specs/shipengine.json", "The layout (size) that you want the label to be in.", "is only supported for `pdf` format."),
    ("Is there a maximum length for my own shipment ID (external_shipment_id) in ShipEngine?", "specs/shipengine.json", "The `external_shipment_id` is limited to 50 characters.", "Any additional characters will be truncated."),
    ("How long is a ShipEngine ephemeral token valid after I request it?", "specs/shipengine.json", "This endpoint returns a token that can be passed to an application", "The lifetime of this token is 10 seconds."),
    ("What does ShipEngine return if I request a page number beyond the last page of results?", "specs/shipengine.json", "Return a specific page of results. Defaults to the first page.", "an empty page is returned."),
)


QUESTIONS_GRAPHQL = (
    # --- how do I ... (mutations / input types) ---
    ("With the GitHub GraphQL API, how can I push a commit to a branch without cloning the repo, and how do I tell it which branch to commit to?", "graphql/github.graphql", "Appends a commit to the given branch as the authenticated user.", "see the documentation for `CommittableBranch`."),
    ("Is there a way in the GitHub GraphQL API to move several branches or tags in a single call so either all of them change or none do, and how would I delete a ref as part of that batch?", "graphql/github.graphql", "Creates, updates and/or deletes multiple refs in a repository.", 'Parameters for UpdateRefs """ input: UpdateRefsInput!'),
    ("How do I move an issue into another repository using the GitHub GraphQL API, and can it create labels that don't exist yet in the destination repo?", "graphql/github.graphql", "Autogenerated input type of TransferIssue", 'the issue should be transferred to """ repositoryId: ID!'),
    ("Using the GitHub GraphQL API, how do I ask additional people or teams to review a pull request without wiping out the reviewers that were already requested?", "graphql/github.graphql", "Autogenerated input type of RequestReviews", 'The Node IDs of the user to request. """ userIds: [ID!]'),
    ("How do I switch on auto-merge for a PR through the GitHub GraphQL API and choose squash instead of a merge commit? Will my custom commit title be used if the repo has a merge queue?", "graphql/github.graphql", "Autogenerated input type of EnablePullRequestAutoMerge", 'ID of the pull request to enable auto-merge on. """ pullRequestId: ID!'),
    ("How do I create a new repository from a template repo with the GitHub GraphQL API, and can I copy every branch instead of only the default one?", "graphql/github.graphql", "Autogenerated input type of CloneTemplateRepository", 'Indicates the repository\'s visibility level. """ visibility: RepositoryVisibility!'),
    ("How can I create a development branch that is linked to an issue via the GitHub GraphQL API, what do I have to pass, and what is the branch called if I don't give a name?", "graphql/github.graphql", "Autogenerated input type of CreateLinkedBranch", 'Defaults to the issue repository. """ repositoryId: ID'),
    # --- what does this field / enum value mean ---
    ("In the GitHub GraphQL API a pull request's merge state comes back as BEHIND, UNSTABLE or HAS_HOOKS - what does each of those values mean?", "graphql/github.graphql", "Detailed status information about a pull request merge.", 'Mergeable with non-passing commit status. """ UNSTABLE'),
    ("What's the difference between the triage and maintain access levels for a repository in the GitHub GraphQL API, compared with read and write?", "graphql/github.graphql", 'The access level to a repository """ enum RepositoryPermission {', 'Can also manage issues and pull requests """ WRITE'),
    ("When restricting who can interact with a repo through the GitHub GraphQL API, which limit options are there, e.g. only past contributors or blocking brand-new accounts?", "graphql/github.graphql", "A repository interaction limit.", 'No interaction limits are enabled. """ NO_LIMIT'),
    ("In the GitHub GraphQL API, what's the difference between FIRST_TIMER and FIRST_TIME_CONTRIBUTOR in a comment's author association with the repo?", "graphql/github.graphql", "A comment author association with repository.", 'Author is the owner of the repository. """ OWNER'),
    ("The GitHub GraphQL API says a pull request file's viewed state is DISMISSED - what does that mean compared with VIEWED or UNVIEWED?", "graphql/github.graphql", "The possible viewed states of a file .", 'The file has been marked as viewed. """ VIEWED'),
    # --- behaviour: limits, deprecations, pagination, permissions ---
    ("How can I find out how many rate limit points a GitHub GraphQL API query would cost without actually executing it?", "graphql/github.graphql", "The client's rate limit information.", "dryRun: Boolean = false ): RateLimit"),
    ("My GitHub GraphQL API search reports an issue count of 5,000 - can I page through all of those results, or is there a cap?", "graphql/github.graphql", "A list of results that matched against a search query.", "potentially split across many pages."),
    ("Asking for the number of changed files on a commit in the GitHub GraphQL API sometimes makes the whole request fail - is that field deprecated, and what should I query instead?", "graphql/github.graphql", "We recommend using the `changedFilesIfAvailable` field instead of", 'We recommend using this field instead of `changedFiles`. """ changedFilesIfAvailable: Int'),
    ("Can I dry-run a repository ruleset in the GitHub GraphQL API so admins see its effect before it's enforced, and is that mode available on every GitHub plan?", "graphql/github.graphql", "The level of enforcement for a rule or ruleset.", '(`evaluate` is only available with GitHub Enterprise). """ EVALUATE'),
)

QUESTIONS_PROTO = (
    # --- how do I ... ---
    ("With google.rpc error details, how do I tell a client how long it should wait before retrying a failed call, and how should it back off after that?", "proto/google/rpc/error_details.proto", "// Describes when the clients can retry a failed request.", "google.protobuf.Duration retry_delay = 1;"),
    ("How do I expose a gRPC Get method as a REST GET endpoint with the resource name in the URL path using the google.api.http annotation?", "proto/google/api/http.proto", "// Each mapping specifies a URL path template and an HTTP method.", '// - gRPC: `GetMessage(name: "messages/123456")`'),
    ("With google.api.http transcoding, how can I serve one RPC at two different REST URLs, e.g. both /v1/messages/{id} and a per-user path?", "proto/google/api/http.proto", "// It is possible to define multiple HTTP methods for one RPC", '// - gRPC: `GetMessage(user_id: "me" message_id: "123456")`'),
    ("How should I represent a negative price like -1.75 USD with google.type.Money - what signs do the whole and fractional parts take?", "proto/google/type/money.proto", "// Represents an amount of money with its currency type.", "int32 nanos = 3;"),
    ("How do I store just a year and month (like a card expiry) or a birthday without a year using google.type.Date?", "proto/google/type/date.proto", "// Represents a whole or partial calendar date, such as a birthday.", "int32 day = 3;"),
    ("How do I annotate fields in my proto API as required or output-only using google.api annotations?", "proto/google/api/field_behavior.proto", "// A designation of a specific field behavior (required, output only, etc.)", "repeated google.api.FieldBehavior field_behavior = 1052;"),
    # --- what does field / enum value X mean ---
    ("If a call fails with DEADLINE_EXCEEDED in google.rpc.Code, can I assume the operation didn't happen, and which HTTP status does it correspond to?", "proto/google/rpc/code.proto", "// The deadline expired before the operation could complete.", "// HTTP Mapping: 504 Gateway Timeout DEADLINE_EXCEEDED = 4;"),
    ("What do OUTPUT_ONLY, INPUT_ONLY and IMMUTABLE mean in google.api field_behavior, and should the server reject a request that sets an output-only field?", "proto/google/api/field_behavior.proto", "// Denotes a field as output only.", "resource, but may not be changed thereafter. IMMUTABLE = 5;"),
    ("In google.api.LaunchStage, how do EARLY_ACCESS, ALPHA and BETA differ in who may use the feature and whether there's an SLA?", "proto/google/api/launch_stage.proto", "// Early Access features are limited to a closed group of testers.", "limited production use cases. BETA = 3;"),
    ("What's the difference between INFO and NOTICE in google.logging.type.LogSeverity, and what numeric values do they have?", "proto/google/logging/type/log_severity.proto", "// (200) Routine information, such as ongoing status or performance.", "// a configuration change. NOTICE = 300;"),
    ("In a google.rpc BadRequest field violation, what does the field path look like for an element of a repeated nested message, and is it camelCase when returned as JSON?", "proto/google/rpc/error_details.proto", "// In this example, in proto `field` could take one", "string field = 1;"),
    ("A google.rpc QuotaFailure violation I received carries a future quota value - what does that number mean and when is it left unset?", "proto/google/rpc/error_details.proto", "// The new quota value being rolled out at the time", "optional int64 future_quota_value = 8;"),
    # --- behaviour ---
    ("Using google.rpc status codes, should a failed optimistic-concurrency (test-and-set) check return FAILED_PRECONDITION, ABORTED or UNAVAILABLE? How do I decide between them?", "proto/google/rpc/code.proto", "// The operation was rejected because the system is not", "// HTTP Mapping: 400 Bad Request FAILED_PRECONDITION = 9;"),
    ("Following google.rpc.Code guidance, if a feature is only enabled for an allowlist of customers, should everyone else get NOT_FOUND or PERMISSION_DENIED?", "proto/google/rpc/code.proto", "// Some requested entity (e.g., file or directory) was not found.", "// HTTP Mapping: 404 Not Found NOT_FOUND = 5;"),
    ("With google.api.http transcoding on a GET, what happens to request fields that aren't in the URL path template, and how are nested message or repeated fields encoded in the query string?", "proto/google/api/http.proto", "// Any fields in the request message which are not bound", "// message is mapped to a separate parameter, such as // `...?foo.a=A&foo.b=B&foo.c=C`."),
    ("If I cancel a google.longrunning operation, is it guaranteed to stop, and what does the operation look like afterwards - does it get deleted?", "proto/google/longrunning/operations_proto.proto", "// Starts asynchronous cancellation on a long-running operation.", "rpc CancelOperation(CancelOperationRequest) returns (google.protobuf.Empty) {"),
)
