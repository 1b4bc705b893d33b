import sys,re,collections,statistics as st
cur=None; R=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('== '): cur=l[3:].strip(); continue
    m=re.match(r'# host clock: per-rank max ([\d.]+) start spread ([\d.]+) end-first ([\d.]+) end-last ([\d.]+)',l)
    if m and cur: R[cur].append([float(x)*1e3 for x in m.groups()])
print('%-26s %5s %8s %8s %8s %8s'%('cell','n','perrank','spread','endfirst','endlast'))
for k in R:
    v=R[k]
    print('%-26s %5d %8.2f %8.2f %8.2f %8.2f'%(k,len(v),*[st.median(x[i] for x in v) for i in range(4)]))
