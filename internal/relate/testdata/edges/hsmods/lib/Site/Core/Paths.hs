module Site.Core.Paths
    ( normalise
    , splitDirs
    , qualifiedName
    ) where

import qualified Data.List as L

-- | Turn Windows separators into slashes.
normalise :: FilePath -> FilePath
normalise = map (\c -> if c == '\\' then '/' else c)

-- | The directories of a path, outermost first.
splitDirs :: FilePath -> [String]
splitDirs p = L.filter (not . null) (go (normalise p))
  where
    go s = case break (== '/') s of
        (a, [])       -> [a]
        (a, _ : rest) -> a : go rest

-- | The path under the site's root, for messages.
qualifiedName :: FilePath -> String
qualifiedName p = "site:" ++ p
