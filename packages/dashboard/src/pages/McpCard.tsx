// "Tools from your MCP servers" (DESIGN §9.2): the owner's MCP servers of one assistant with their
// status, what is wrong and the tools they offer; add or replace one (its header is write-only:
// sent once, never shown again) and remove one. Applied live on an active assistant.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api/client';
import { deploymentsKey } from '../api/deployments';
import { ErrorNotice } from '../components/ErrorNotice';
import { Table } from '../components/Table';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';

export function McpCard({ id, active }: { id: string; active: boolean }) {
  const qc = useQueryClient();
  const key = [...deploymentsKey(), id, 'mcp-servers'];
  const servers = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(api.GET('/api/v1/assistants/{deploymentId}/mcp-servers', { params: { path: { deploymentId: id } } })),
    refetchInterval: active ? 5000 : false,
  });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [headerName, setHeaderName] = useState('Authorization');
  const [headerValue, setHeaderValue] = useState('');
  const refresh = () => qc.invalidateQueries({ queryKey: key });
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/assistants/{deploymentId}/mcp-servers/{name}', {
          params: { path: { deploymentId: id, name: name.trim() } },
          body: {
            url: url.trim(),
            ...(headerValue ? { headers: { [headerName.trim()]: headerValue } } : {}),
          },
        }),
      ),
    onSuccess: () => {
      setName('');
      setUrl('');
      setHeaderValue('');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (server: string) =>
      unwrap(
        api.DELETE('/api/v1/assistants/{deploymentId}/mcp-servers/{name}', {
          params: { path: { deploymentId: id, name: server } },
        }),
      ),
    onSuccess: refresh,
  });
  const ids = { name: useId(), url: useId(), headerName: useId(), headerValue: useId() };
  return (
    <section aria-labelledby="mcp-title" className="card">
      <h2 id="mcp-title">Tools from your MCP servers</h2>
      <ErrorNotice error={servers.error ?? add.error ?? remove.error} />
      {servers.data?.length ? (
        <Table columns={['Server', 'Status', 'Tools offered', 'What is wrong']} actions>
          {servers.data.map((s) => (
            <tr key={s.name}>
              <td>
                <span className="mono">{s.name}</span>
                <br />
                <span className="muted">{s.url}</span>
              </td>
              <td>{s.status}</td>
              <td>
                {s.tools
                  .filter((t) => t.enabled)
                  .map((t) => t.name)
                  .join(', ') || '—'}
              </td>
              <td>{s.statusMessage ?? '—'}</td>
              <td>
                <button type="button" onClick={() => remove.mutate(s.name)}>
                  Remove {s.name}
                </button>
              </td>
            </tr>
          ))}
        </Table>
      ) : (
        <p className="muted">No MCP servers: the assistant uses its built-in tools only.</p>
      )}
      <Form className="stack" onSubmit={() => add.mutate()}>
        <h3>Add or replace a server</h3>
        <div className="field">
          <label htmlFor={ids.name}>Name (lower-case letters, digits, _ and -)</label>
          <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} required maxLength={32} />
        </div>
        <div className="field">
          <label htmlFor={ids.url}>Server URL (https)</label>
          <input id={ids.url} type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor={ids.headerName}>Header name</label>
          <input id={ids.headerName} value={headerName} onChange={(e) => setHeaderName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.headerValue}>Header value (an API key or bearer token; never shown again)</label>
          <input
            id={ids.headerValue}
            type="password"
            autoComplete="off"
            value={headerValue}
            onChange={(e) => setHeaderValue(e.target.value)}
          />
        </div>
        <div className="row">
          <SubmitButton pending={add.isPending} busy="Connecting…">
            Save server
          </SubmitButton>
        </div>
      </Form>
    </section>
  );
}
