import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { BerthApiError } from '@berth/client';
import { App } from './App';
import './styles.css';

// A session that ended (expired, signed out elsewhere) sends the user to sign in, from any call.
function onError(err: unknown) {
  if (err instanceof BerthApiError && err.code === 'UNAUTHORIZED') {
    void queries.invalidateQueries({ queryKey: ['session'] });
  }
}

const queries: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
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
