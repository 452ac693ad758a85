-- Key labels show only the prefix and the last four characters (reliability goal G10). Labels written before this
-- showed the first three random characters too (`gp-AbC...x9Yz`): those are cut (`gp-...x9Yz`). A label already in
-- the new form does not match the pattern and stays as it is.
UPDATE api_key SET label = regexp_replace(label, '^(gpm?-)[0-9A-Za-z]{3}\.\.\.', '\1...')
WHERE label ~ '^gpm?-[0-9A-Za-z]{3}\.\.\.';
UPDATE management_key SET label = regexp_replace(label, '^(gpm?-)[0-9A-Za-z]{3}\.\.\.', '\1...')
WHERE label ~ '^gpm?-[0-9A-Za-z]{3}\.\.\.';
