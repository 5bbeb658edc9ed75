import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  // Added for Atoll's framework suite: a page and an API route.
  route("env", "routes/env.tsx"),
  route("api/greeting", "routes/api.greeting.ts"),
] satisfies RouteConfig;
