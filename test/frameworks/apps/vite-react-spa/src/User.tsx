// Added to the starter for Atoll's framework suite: a client-side route that shows a shell variable (inlined by Vite at build time).
import { useParams } from 'react-router'

export default function User() {
  const { id } = useParams()
  return (
    <main>
      <h1>User {id}</h1>
      <p id="greeting">VITE_FW_GREETING={import.meta.env.VITE_FW_GREETING ?? '(unset)'}</p>
    </main>
  )
}
