// Added to the starter for Atoll's framework suite: an API route (a resource route) answering JSON per request.
export function loader() {
  return Response.json({ framework: "react-router", greeting: process.env.FW_GREETING ?? null });
}
