import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { BrowserRouter, Route, Routes } from 'react-router'
import './index.css'
import App from './App.tsx'
import User from './User.tsx'

// Client-side routes added for Atoll's framework suite: /users/42 is a deep link the host must answer with index.html.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter>
      <Routes>
        <Route path="/" element={<App />} />
        <Route path="/users/:id" element={<User />} />
      </Routes>
    </BrowserRouter>
  </StrictMode>,
)
