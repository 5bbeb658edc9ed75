// Added to the starter for Atoll's framework suite: a page rendered per request that shows a shell variable.
import type { Route } from "./+types/env";

export function loader() {
  return { greeting: process.env.FW_GREETING ?? "(unset)" };
}

export default function Env({ loaderData }: Route.ComponentProps) {
  return (
    <main>
      <h1>Shell variable</h1>
      <p id="greeting">FW_GREETING={loaderData.greeting}</p>
    </main>
  );
}
