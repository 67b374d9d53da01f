/* awrlens viewer settings, read once at start.
 * The same static files run under Flask (`make run`: apiBase "" = this page's origin) and from an S3 bucket in
 * front of API Gateway: there, set apiBase to the stage URL (no trailing slash) and, if the API uses a usage plan,
 * apiKey, e.g. apiBase: "https://abc123.execute-api.eu-west-1.amazonaws.com/prod". */
window.AWRLENS_CONFIG = {
  apiBase: "",          // where /api/v1 lives; "" = the page's own origin
  apiKey: "",           // sent as the x-api-key header when set
  timeoutMs: 30000,     // per request; API Gateway gives up after 29 s and the API answers before that
  defaultRange: "7d",   // 1d | 7d | 45d, ending at the database's newest snapshot
  maxPoints: 1000,      // points per series; fixed, not per screen, so a link shows the same points everywhere
  detailMaxHours: 6,    // windows this short use per-minute sysmetric history where the database has it
  topSqlLimit: 25,      // rows of the top SQL table
  cacheSeconds: 300     // answers kept in memory (Back and Forward redraw without asking again)
};
