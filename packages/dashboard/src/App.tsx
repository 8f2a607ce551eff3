import { BillingPage } from './pages/BillingPage';
import type { ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { useSession } from './api/session';
import { ErrorNotice } from './components/ErrorNotice';
import { Layout } from './components/Layout';
import { AccountPage } from './pages/AccountPage';
import { ChatPage } from './pages/ChatPage';
import { DeploymentPage } from './pages/DeploymentPage';
import { DeploymentsPage } from './pages/DeploymentsPage';
import { DemoPage } from './pages/DemoPage';
import { InvitePage } from './pages/InvitePage';
import { KeysPage } from './pages/KeysPage';
import { OrganizationsPage } from './pages/OrganizationsPage';
import { ForgotPasswordPage, ResetPasswordPage, SignInPage, SignUpPage } from './pages/AuthPages';
import { NotFoundPage } from './pages/NotFoundPage';

function SignedIn({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <p className="center muted">Loading…</p>;
  if (session.error) return <ErrorNotice error={session.error} title="The server could not be reached." />;
  if (!session.data) {
    return <Navigate to={`/signin?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  return children;
}

export function App() {
  return (
    <Routes>
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/signup" element={<SignUpPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/reset-password" element={<ResetPasswordPage />} />
      <Route
        element={
          <SignedIn>
            <Layout />
          </SignedIn>
        }
      >
        <Route index element={<DeploymentsPage />} />
        <Route path="/deployments/:id" element={<DeploymentPage />} />
        <Route path="/deployments/:id/chat" element={<ChatPage />} />
        <Route path="/deployments/:id/billing" element={<BillingPage />} />
        <Route path="/keys" element={<KeysPage />} />
        <Route path="/organizations" element={<OrganizationsPage />} />
        <Route path="/invite/:token" element={<InvitePage />} />
        <Route path="/account" element={<AccountPage />} />
        <Route path="/demo" element={<DemoPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
