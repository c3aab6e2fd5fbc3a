// The raw librdkafka relay that `kafka-tool bench relay` measures its Swift hops against, in the same run: a
// copy of the project's C baseline (../shared/baselines/relay.c, the one the performance issue's figures
// come from), kept in the repository so that CI, which clones only the repository, can build and run it.
// Changes from the original: the latency comparison moved out of `main` (clang has no nested functions),
// and the driver prints "ready" once its warm-up is over, so the bench samples the stages' CPU from then.
//   relay-baseline stage BROKERS IN OUT             copies every message of topic IN to OUT
//   relay-baseline driver BROKERS FIRST LAST N RATE offers N messages at RATE/s to FIRST, reads them back from LAST
// Environment: LINGER (linger.ms, default 1), FW (fetch.wait.max.ms, default 10).
//   relay-baseline --version                       prints the release it was built with (REGISTRAR_VERSION, from Package.swift)
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
static volatile int run = 1;
static void stop(int s){(void)s; run=0;}
static double now(){struct timespec t; clock_gettime(CLOCK_REALTIME,&t); return t.tv_sec+t.tv_nsec/1e9;}
static rd_kafka_t *mk(rd_kafka_type_t type, const char *brokers, const char *group){
  char e[512]; rd_kafka_conf_t *c=rd_kafka_conf_new();
  rd_kafka_conf_set(c,"bootstrap.servers",brokers,e,sizeof e);
  rd_kafka_conf_set(c,"linger.ms",getenv("LINGER")?getenv("LINGER"):"1",e,sizeof e);
  if(group){rd_kafka_conf_set(c,"group.id",group,e,sizeof e);
    rd_kafka_conf_set(c,"auto.offset.reset","earliest",e,sizeof e);
    rd_kafka_conf_set(c,"fetch.wait.max.ms",getenv("FW")?getenv("FW"):"10",e,sizeof e);
  }
  rd_kafka_t *rk=rd_kafka_new(type,c,e,sizeof e); if(!rk){fprintf(stderr,"%s\n",e);exit(1);}
  if(group) rd_kafka_poll_set_consumer(rk);
  return rk;
}
static void sub(rd_kafka_t *rk,const char*t){rd_kafka_topic_partition_list_t*l=rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l,t,RD_KAFKA_PARTITION_UA); rd_kafka_subscribe(rk,l); rd_kafka_topic_partition_list_destroy(l);}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  signal(SIGTERM,stop); signal(SIGINT,stop);
  if(argc==2&&!strcmp(argv[1],"--version")){printf("relay-baseline %s\n",REGISTRAR_VERSION);return 0;}
  if(argc<5||(strcmp(argv[1],"stage")&&argc<6)){fprintf(stderr,"usage: relay-baseline stage BROKERS IN OUT | driver BROKERS FIRST LAST N [RATE] | --version\n");return 2;}
  const char*b=argv[2];
  if(!strcmp(argv[1],"stage")){ // stage brokers in out
    rd_kafka_t*c=mk(RD_KAFKA_CONSUMER,b,argv[3]); rd_kafka_t*p=mk(RD_KAFKA_PRODUCER,b,NULL);
    rd_kafka_topic_t*ot=rd_kafka_topic_new(p,argv[4],NULL); sub(c,argv[3]);
    while(run){ rd_kafka_message_t*m=rd_kafka_consumer_poll(c,100); rd_kafka_poll(p,0);
      if(!m) continue; if(m->err){rd_kafka_message_destroy(m);continue;}
      while(rd_kafka_produce(ot,RD_KAFKA_PARTITION_UA,RD_KAFKA_MSG_F_COPY,m->payload,m->len,m->key,m->key_len,NULL)==-1) rd_kafka_poll(p,10);
      rd_kafka_message_destroy(m);
    }
    rd_kafka_flush(p,5000); rd_kafka_consumer_close(c); return 0;
  }
  // driver brokers first last N rate
  const char*first=argv[3],*last=argv[4]; int n=atoi(argv[5]); double rate=argc>6?atof(argv[6]):0;
  rd_kafka_t*c=mk(RD_KAFKA_CONSUMER,b,"driver"); rd_kafka_t*p=mk(RD_KAFKA_PRODUCER,b,NULL);
  rd_kafka_topic_t*ft=rd_kafka_topic_new(p,first,NULL); sub(c,last);
  // wait for assignment
  double t0=now(); while(now()-t0<3){rd_kafka_message_t*m=rd_kafka_consumer_poll(c,100); if(m)rd_kafka_message_destroy(m);}
  printf("ready\n"); fflush(stdout);
  double *lat=calloc(n,sizeof(double)); int got=0,sent=0; double start=now();
  while(got<n && now()-start<120){
    if(sent<n && (rate<=0 || sent < (now()-start)*rate)){
      char buf[128]; int len=snprintf(buf,sizeof buf,"{\"i\":%d,\"t\":%.9f,\"pad\":\"registration-request-user@example.com\"}",sent,now());
      char key[32]; int kl=snprintf(key,sizeof key,"k%d",sent);
      if(rd_kafka_produce(ft,RD_KAFKA_PARTITION_UA,RD_KAFKA_MSG_F_COPY,buf,len,key,kl,NULL)==0) sent++;
      rd_kafka_poll(p,0); if(rate<=0 && sent%1000) continue;
    }
    rd_kafka_message_t*m=rd_kafka_consumer_poll(c, sent<n?0:50); rd_kafka_poll(p,0);
    if(!m) continue; if(!m->err){ double t=atof(strstr((char*)m->payload,"\"t\":")+4); lat[got++]=now()-t;} rd_kafka_message_destroy(m);
  }
  double el=now()-start;
  qsort(lat,got,sizeof(double),cmp);
  printf("sent=%d got=%d elapsed=%.2fs throughput=%.0f/s p50=%.2fms p99=%.2fms max=%.2fms\n",sent,got,el,got/el,
    got?lat[got/2]*1e3:0, got?lat[(int)(got*0.99)]*1e3:0, got?lat[got-1]*1e3:0);
  rd_kafka_consumer_close(c); return 0;
}
