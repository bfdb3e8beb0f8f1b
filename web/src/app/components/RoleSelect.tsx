/** The role a new user or API key gets: operator (day-to-day) or admin (users, keys, settings). */
export function RoleSelect({ value, onChange }: { value: string; onChange: (role: string) => void }) {
  return (
    <label>Role
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="operator">operator</option><option value="admin">admin</option>
      </select>
    </label>
  );
}
