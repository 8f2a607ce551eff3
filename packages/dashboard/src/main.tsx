import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { BerthApiError } from '@berth/client';
import { App } from './App';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // A 4xx will not change by asking again; a dropped connection might.
    queries: { retry: (n, err) => n < 2 && !(err instanceof BerthApiError && err.status >= 400 && err.status < 500) },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
