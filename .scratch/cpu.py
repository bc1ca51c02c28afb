import sys, time
pid=int(sys.argv[1]); dur=float(sys.argv[2]); step=float(sys.argv[3]) if len(sys.argv)>3 else 0.5
def cpu():
    f=open(f"/proc/{pid}/stat").read().rsplit(")",1)[1].split()
    return (int(f[11])+int(f[12]))/100.0
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1])
t0=time.time()
while time.time()-t0<dur:
    print(round(time.time()-t0,1), cpu(), rss(), flush=True)
    time.sleep(step)
