// Added to the starter for Atoll's framework suite: a page rendered per request that shows a shell variable.
import { connection } from "next/server";
import { Suspense } from "react";

async function Greeting() {
  await connection();
  return <p id="greeting">FW_GREETING={process.env.FW_GREETING ?? "(unset)"}</p>;
}

export default function EnvPage() {
  return (
    <main>
      <h1>Shell variable</h1>
      <Suspense fallback={<p>loading</p>}>
        <Greeting />
      </Suspense>
    </main>
  );
}
